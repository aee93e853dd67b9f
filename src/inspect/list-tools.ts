import type { Bundle } from "../bundle/types.js";

/** One line of the compact listing: enough to choose a tool, never its schemas. */
export interface ToolSummary {
  name: string;
  summary: string;
}

export interface ListToolsFilter {
  /** Words that must all appear, in any case, in the tool's `server/tool` name or its description. */
  query?: string;
  /** Only this server's tools. */
  server?: string;
}

const SUMMARY_LIMIT = 160;

/** The bundle's tools as `server/tool` names with the first sentence of their description, filtered. */
export function listTools(bundle: Bundle, filter: ListToolsFilter = {}): ToolSummary[] {
  const words = (filter.query ?? "")
    .toLowerCase()
    .split(/\s+/)
    .filter((word) => word !== "");
  return bundle.servers
    .filter((server) => filter.server === undefined || server.id === filter.server)
    .flatMap((server) =>
      server.tools.map((tool) => ({ name: `${server.id}/${tool.name}`, description: tool.description ?? tool.title ?? "" })),
    )
    .filter(({ name, description }) => {
      const haystack = `${name}\n${description}`.toLowerCase();
      return words.every((word) => haystack.includes(word));
    })
    .map(({ name, description }) => ({ name, summary: firstSentence(description) }));
}

/**
 * The first sentence of a description's first paragraph, whitespace collapsed, at most 160
 * characters. A stop ends it only before a capital, a digit, a quote or a bracket, so "e.g. *.ts" stays whole.
 */
export function firstSentence(description: string): string {
  const firstParagraph = description.trim().split(/\n\s*\n/)[0] ?? "";
  const sentence = (firstParagraph.match(/^.*?[.!?](?=\s+[\p{Lu}\d"'`([]|\s*$)/su)?.[0] ?? firstParagraph).replace(/\s+/g, " ").trim();
  // By code point, so a cut never splits a surrogate pair.
  const chars = Array.from(sentence);
  return chars.length <= SUMMARY_LIMIT
    ? sentence
    : `${chars
        .slice(0, SUMMARY_LIMIT - 1)
        .join("")
        .trimEnd()}…`;
}
