import { isObject } from "./pointer.js";

export const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/** The dialects a tool schema may declare by `$schema`, without the optional trailing `#`. */
const KNOWN_DIALECTS: ReadonlySet<string> = new Set([
  "http://json-schema.org/draft-04/schema",
  "http://json-schema.org/draft-06/schema",
  "http://json-schema.org/draft-07/schema",
  "https://json-schema.org/draft/2019-09/schema",
  DRAFT_2020_12,
]);

/** Whether `$schema` names one of the dialects above. */
export function isKnownDialect(uri: string): boolean {
  return KNOWN_DIALECTS.has(uri.replace(/#$/, ""));
}

/**
 * Whether `schema` declares draft-04 to draft-07 by `$schema`. Without one (or with any later
 * one) it is read as 2020-12, MCP's default since 2025-11-25.
 */
export function isDraft07OrOlder(schema: unknown): boolean {
  return isObject(schema) && typeof schema.$schema === "string" && /draft-0[4-7]/.test(schema.$schema);
}
