import { count } from "../count.js";
import { atLeast, QUALITIES, type Quality, type SchemaSource, schemaSourceOf } from "./quality.js";
import type { Bundle } from "./types.js";

/** Where a tool's result type comes from and how sure it is: what a generation records per tool. */
export interface ToolQuality {
  server: string;
  tool: string;
  source: SchemaSource;
  quality: Quality;
  /** Results its inferred schema was learned from; 0 without one. */
  observations: number;
}

export type QualityChangeKind = "improved" | "regressed" | "new" | "gone";

/** One tool whose source or quality differs between two generations. */
export interface QualityChange {
  kind: QualityChangeKind;
  server: string;
  tool: string;
  /** Absent for a new tool. */
  from?: Pick<ToolQuality, "source" | "quality">;
  /** Absent for a tool that is gone. */
  to?: Pick<ToolQuality, "source" | "quality">;
  /** The observations behind the newer state (the older one for a tool that is gone). */
  observations: number;
}

/**
 * Every tool of the bundle, in bundle order, with its source and quality (see schemaSourceOf). An
 * inferred schema below `minQuality` types nothing in clients generated with it: the tool is unknown there.
 */
export function toolQualities(bundle: Bundle, minQuality: Quality = "none"): ToolQuality[] {
  return bundle.servers.flatMap((server) => {
    const inferred = new Map((server.inferred ?? []).map((block) => [block.tool, block]));
    return server.tools.map((tool) => {
      const block = inferred.get(tool.name);
      const known = schemaSourceOf(tool, block);
      const used =
        known.source !== "inferred" || atLeast(known.quality, minQuality)
          ? known
          : { source: "unknown" as const, quality: "none" as const };
      return { server: server.id, tool: tool.name, ...used, observations: block?.observations ?? 0 };
    });
  });
}

/**
 * What changed from `before` to `after`, in `after`'s order, then the tools that are gone in
 * `before`'s. A higher quality is an improvement, and so, at the same quality, is a schema the
 * server declares where one was inferred. More observations at the same level are no change.
 */
export function qualityChanges(before: readonly ToolQuality[], after: readonly ToolQuality[]): QualityChange[] {
  const key = (entry: ToolQuality) => JSON.stringify([entry.server, entry.tool]);
  const earlier = new Map(before.map((entry) => [key(entry), entry]));
  const later = new Set(after.map(key));
  const changes: QualityChange[] = [];
  for (const entry of after) {
    const was = earlier.get(key(entry));
    const to = { source: entry.source, quality: entry.quality };
    const base = { server: entry.server, tool: entry.tool, observations: entry.observations };
    if (was === undefined) {
      changes.push({ kind: "new", ...base, to });
      continue;
    }
    const order = rank(entry) - rank(was);
    if (order !== 0)
      changes.push({ kind: order > 0 ? "improved" : "regressed", ...base, from: { source: was.source, quality: was.quality }, to });
  }
  for (const entry of before) {
    if (!later.has(key(entry)))
      changes.push({
        kind: "gone",
        server: entry.server,
        tool: entry.tool,
        observations: entry.observations,
        from: { source: entry.source, quality: entry.quality },
      });
  }
  return changes;
}

/**
 * Quality first, then whether the server declares the schema: an inferred `high` becoming declared
 * is an improvement, while a declared tool seen answering (hybrid) or its schema moving from PMCP's
 * annotation to `outputSchema` is the same schema, no change.
 */
function rank(entry: Pick<ToolQuality, "source" | "quality">): number {
  const declared = entry.source === "declared" || entry.source === "annotated" || entry.source === "hybrid";
  return QUALITIES.indexOf(entry.quality) * 2 + (declared ? 1 : 0);
}

/**
 * One change as a line, as generate, dev and the report's recent improvements print it:
 * `gauntlet/free_form: low → medium (12 observations)`. A state is its quality while the type is
 * inferred or unknown, and its source once the server declares one.
 */
export function qualityChangeLine(change: QualityChange): string {
  const name = toolLabel(change.server, change.tool);
  const seen = change.observations > 0 ? ` (${count(change.observations, "observation")})` : "";
  if (change.from === undefined) return `${name}: new, ${label(change.to!)}${seen}`;
  if (change.to === undefined) return `${name}: gone (was ${label(change.from)})`;
  return `${name}: ${label(change.from)} → ${label(change.to)}${seen}`;
}

function label(state: Pick<ToolQuality, "source" | "quality">): string {
  return state.source === "inferred" || state.source === "unknown" ? state.quality : state.source;
}

/**
 * `server/tool` for a line of text. A tool's name is the server's text: one holding a line break or
 * another control character is quoted as JSON, so that it cannot start a line of its own (one that
 * reads like a command `pmcp report` recommends, say).
 */
export function toolLabel(server: string, tool: string): string {
  const name = `${server}/${tool}`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(name) ? JSON.stringify(name) : name;
}
