import type { Tool } from "@modelcontextprotocol/server";
import { toolTagsOf, UNLISTED_TOOLS_META } from "../bundle/tool-tags.js";
import { count } from "../count.js";

/**
 * What tools/list shows first: every tool (`"all"`), the tools of phase `basic`, or the `top` N
 * by popularity. The latter two list them most popular first and add `enable_tools`.
 */
export type ToolListing = "all" | "basic" | { top: number };

/** The tool a shortened listing adds, which lists the rest: GitHub's MCP server's dynamic toolsets, for one server. */
export const ENABLE_TOOLS = "enable_tools";

/** A listing that starts short and grows as `enable_tools` is called. */
export interface GrowingListing {
  /**
   * `enable_tools` as first listed; its description and its `_meta["pmcp/unlisted"]` (the count of
   * tools not listed yet, which export warns about) change as tools are added, its schema does not.
   */
  readonly enableTools: Tool;
  /** The tools/list result now: the first listing, the tools added since in the order they were added, then `enable_tools`. */
  tools(): Tool[];
  /** Adds the tools not listed yet, all or `category`'s, and says which; `added` is empty when none were left. */
  add(category: string | undefined): { added: readonly string[]; text: string };
}

/**
 * The listing `listing` starts with, most popular first: no popularity counts as 0, ties keep
 * the manifest's order. `enable_tools` is listed even when no tool is left out, so that a
 * server's listing has one shape whatever its manifest holds.
 */
export function growingListing(tools: readonly Tool[], listing: Exclude<ToolListing, "all">): GrowingListing {
  const ranked = tools
    .map((tool, index) => ({ tool, index, tags: toolTagsOf(tool._meta) }))
    .sort((a, b) => (b.tags.popularity ?? 0) - (a.tags.popularity ?? 0) || a.index - b.index);
  const first = listing === "basic" ? ranked.filter(({ tags }) => tags.phase === "basic") : ranked.slice(0, listing.top);
  const rest = ranked.filter((entry) => !first.includes(entry));
  const listed = first.map(({ tool }) => tool);
  const categories = [...new Set(rest.flatMap(({ tags }) => (tags.category === undefined ? [] : [tags.category])))];
  const inputSchema: Tool["inputSchema"] = {
    type: "object",
    properties:
      categories.length === 0
        ? {}
        : { category: { type: "string", enum: categories, description: "Only the tools of this category; without it, all." } },
    additionalProperties: false,
  };
  const enableToolsNow = (): Tool => ({
    name: ENABLE_TOOLS,
    description: describe(rest.map(({ tags }) => tags.category)),
    inputSchema,
    _meta: { [UNLISTED_TOOLS_META]: rest.length },
  });
  return {
    enableTools: enableToolsNow(),
    tools: () => [...listed, enableToolsNow()],
    add(category) {
      const adding = rest.filter(({ tags }) => category === undefined || tags.category === category);
      if (adding.length === 0) {
        return {
          added: [],
          text:
            category === undefined
              ? "Every tool is listed already"
              : `Every tool of category ${JSON.stringify(category)} is listed already`,
        };
      }
      for (const entry of adding) rest.splice(rest.indexOf(entry), 1);
      listed.push(...adding.map(({ tool }) => tool));
      const added = adding.map(({ tool }) => tool.name);
      return { added, text: `Added ${count(added.length, "tool")} to the tools list: ${added.join(", ")}` };
    },
  };
}

/** `Lists more of this server's tools … Not listed yet: 2 tools in "read", 1 tool without a category.` */
function describe(categories: readonly (string | undefined)[]): string {
  const intro = "Lists more of this server's tools, all of them or one category's; the tools list then includes them.";
  if (categories.length === 0) return `${intro} Every tool is listed already.`;
  const counts = new Map<string | undefined, number>();
  for (const category of categories) counts.set(category, (counts.get(category) ?? 0) + 1);
  const parts = [...counts].map(
    ([category, n]) => `${count(n, "tool")} ${category === undefined ? "without a category" : `in ${JSON.stringify(category)}`}`,
  );
  return `${intro} Not listed yet: ${parts.join(", ")}.`;
}
