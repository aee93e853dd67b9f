import { discoveryPlan } from "../bundle/discovery-plan.js";
import { schemaSourceOf } from "../bundle/quality.js";
import type { Bundle, BundleServer, InferredTool, Tool } from "../bundle/types.js";

/** The unknown tools of a server that `pmcp schema discover` would call as they are, and the command that would. */
export interface DiscoverRecommendation {
  server: string;
  tools: string[];
  /** Null when the bundle does not record where the server was reached, or a part of it would not fit on one line. */
  command: string | null;
}

export interface ToolName {
  server: string;
  tool: string;
}

/** What would make the clients' types better, tool by tool (the report's recommendations). */
export interface Recommendations {
  /** Unknown tools that are safe to call for observations: read-only, no required arguments. */
  discover: DiscoverRecommendation[];
  /** Tools whose results break their declared output schema: a server bug their typed callers hit. */
  drift: ToolName[];
  /** Unknown tools that answer in prose, images or links: an output schema on the server would type them. */
  noJson: ToolName[];
  /** Inferred tools of quality low: a few more observations make them medium. */
  moreObservations: (ToolName & { observations: number })[];
}

/** A tool by the results observed in all (the inferred block's `seen`). */
export interface UsageLine extends ToolName {
  calls: number;
}

/** How many tools the most-used list names. */
export const MOST_USED = 10;

/** The folder of observation logs the README uses: where recommended discover command lines write unless pmcp.config says another. */
const OBSERVATIONS = "observations/";

/** What would make the types of a bundle's clients better. */
export function recommendationsFor(
  bundle: Bundle,
  observations = OBSERVATIONS,
  configured: ReadonlySet<string> = new Set(),
): Recommendations {
  const recommendations: Recommendations = { discover: [], drift: [], noJson: [], moreObservations: [] };
  for (const server of bundle.servers) {
    const safe: string[] = [];
    for (const { tool, block } of listedTools(server)) {
      const { source, quality } = schemaSourceOf(tool, block);
      const name = { server: server.id, tool: tool.name };
      if (block?.drift !== undefined && block.drift.length > 0) recommendations.drift.push(name);
      if (source === "inferred" && quality === "low") recommendations.moreObservations.push({ ...name, observations: block!.observations });
      if (source !== "unknown") continue;
      // An output schema types text a server could send as JSON; images and links have nothing to type.
      if (block?.content !== undefined) {
        if (Object.hasOwn(block.content, "text")) recommendations.noJson.push(name);
      } else if ("calls" in discoveryPlan(server.id, tool, {}, new Set())) safe.push(tool.name);
    }
    if (safe.length > 0)
      recommendations.discover.push({
        server: server.id,
        tools: safe,
        command: discoverCommand(server, observations, configured.has(server.id)),
      });
  }
  return recommendations;
}

/** The `limit` tools with the most observed results, most first, then in bundle order. */
export function mostUsed(bundle: Bundle, limit = MOST_USED): UsageLine[] {
  return bundle.servers
    .flatMap((server) =>
      listedTools(server).flatMap(({ tool, block }) =>
        block !== undefined && block.seen > 0 ? [{ server: server.id, tool: tool.name, calls: block.seen }] : [],
      ),
    )
    .sort((a, b) => b.calls - a.calls)
    .slice(0, limit);
}

function listedTools(server: BundleServer): { tool: Tool; block: InferredTool | undefined }[] {
  const inferred = new Map((server.inferred ?? []).map((block) => [block.tool, block]));
  return server.tools.map((tool) => ({ tool, block: inferred.get(tool.name) }));
}

/**
 * `pmcp schema discover` for the server: by its pmcp.config entry when it has one (`configured`),
 * which carries its environment, headers and working folder; else as the bundle says it was
 * reached, each word quoted for a POSIX shell: the command and its arguments are the server's, so
 * no text of theirs runs as shell. The bundle never recorded headers or environment values.
 */
function discoverCommand(server: BundleServer, observations: string, configured: boolean): string | null {
  const { endpoint } = server;
  const target = configured
    ? ["--server", server.id]
    : endpoint === undefined
      ? undefined
      : endpoint.transport === "stdio"
        ? ["--stdio", shellLine([endpoint.command, ...endpoint.args]), "--id", server.id]
        : ["--endpoint", endpoint.url, "--id", server.id];
  if (target === undefined) return null;
  const words = ["pmcp", "schema", "discover", ...target, "--observations", observations];
  // A line break or control character would split the command, or restyle the terminal it is shown in.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: these are what a one-line command cannot hold
  return words.some((word) => /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(word)) ? null : shellLine(words);
}

/**
 * Words as a shell line: plain words as they are, any other in single quotes (`'` as `'\''`), which
 * both a POSIX shell and `--stdio`'s parser read back as written; shell-quote's own `quote` writes
 * `\*` and `"\`"`, which that parser reads as a glob and a backslash.
 */
function shellLine(words: readonly string[]): string {
  return words.map((word) => (/^[\w./:@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)).join(" ");
}
