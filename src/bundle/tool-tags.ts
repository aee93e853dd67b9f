/**
 * The tool tags (`@category`, `@phase`, `@popularity`, `@rateLimit` in a tool function's
 * JSDoc). They travel in the tool's `_meta`, MCP's extension point, under the `pmcp/` prefix, so
 * export keeps them in the bundle and clients and inspect can show them.
 */
export const TOOL_TAG_KEYS = {
  category: "pmcp/category",
  phase: "pmcp/phase",
  popularity: "pmcp/popularity",
  rateLimit: "pmcp/rateLimit",
} as const;

/**
 * The `_meta` key of the tool a shortened first listing adds (`registerFunctions`' `enable_tools`):
 * how many tools it keeps behind it, so that export can say its listing is not every tool.
 */
export const UNLISTED_TOOLS_META = "pmcp/unlisted";

/** The tools not listed yet that a tool's `_meta` says it holds back; undefined unless a whole number ≥ 1 (the server is not trusted). */
export function unlistedToolsOf(meta: Readonly<Record<string, unknown>> | undefined): number | undefined {
  const value = metaValue(meta, UNLISTED_TOOLS_META);
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}

export interface ToolTags {
  category?: string;
  /** `basic` marks the tools of a server's first listing. */
  phase?: string;
  popularity?: number;
  /** The rate-limit bucket the tool's calls draw from. */
  rateLimit?: string;
}

/** The tags a tool's `_meta` holds; a value of the wrong type (the server is not trusted) is left out. */
export function toolTagsOf(meta: Readonly<Record<string, unknown>> | undefined): ToolTags {
  const text = (key: string): string | undefined => {
    const value = metaValue(meta, key);
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  const popularity = metaValue(meta, TOOL_TAG_KEYS.popularity);
  const tags = {
    category: text(TOOL_TAG_KEYS.category),
    phase: text(TOOL_TAG_KEYS.phase),
    popularity: typeof popularity === "number" && Number.isFinite(popularity) ? popularity : undefined,
    rateLimit: text(TOOL_TAG_KEYS.rateLimit),
  };
  return Object.fromEntries(Object.entries(tags).filter(([, value]) => value !== undefined)) as ToolTags;
}

/** `category read, phase basic, popularity 10, rate limit read`, for docs; `""` without tags. */
export function toolTagsText(tags: ToolTags): string {
  return [
    tags.category === undefined ? "" : `category ${tags.category}`,
    tags.phase === undefined ? "" : `phase ${tags.phase}`,
    tags.popularity === undefined ? "" : `popularity ${tags.popularity}`,
    tags.rateLimit === undefined ? "" : `rate limit ${tags.rateLimit}`,
  ]
    .filter(Boolean)
    .join(", ");
}

/** A `_meta` key's own value: a key inherited from Object.prototype (`constructor`) is no value. */
function metaValue(meta: Readonly<Record<string, unknown>> | undefined, key: string): unknown {
  return meta !== undefined && Object.hasOwn(meta, key) ? meta[key] : undefined;
}
