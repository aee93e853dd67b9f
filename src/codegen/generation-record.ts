import { QUALITIES, type Quality, type SchemaSource, SOURCES } from "../bundle/quality.js";
import { type QualityChange, qualityChanges, type ToolQuality, toolQualities } from "../bundle/quality-changes.js";
import type { Bundle } from "../bundle/types.js";
import { readRecord } from "./module-record.js";

/**
 * What a generation records in `index.ts`: each tool's source and quality as it was generated, and
 * the changes between generations, so the next generation and `pmcp report` know what improved.
 */
export interface GenerationRecord {
  /** Every server of the bundle, in its order, tools or none. */
  servers: string[];
  qualities: ToolQuality[];
  /** Improvements and regressions, oldest first (new and gone tools are in each generation's changes only). */
  history: QualityChange[];
}

/**
 * The most changes the history keeps: every generation that changes a quality rewrites `index.ts`
 * with it (`pmcp dev` regenerates on each change), so an unbounded history would grow the file for
 * ever, while the report shows only recent improvements.
 */
export const HISTORY_LIMIT = 50;

export interface NextGeneration {
  record: GenerationRecord;
  /** Changes since the previous generation; undefined when no record of one was there to compare with. */
  changes: QualityChange[] | undefined;
}

/**
 * The record of generating `bundle` after `previous`: a function of the two only (no clock), so the
 * same bundle over the same index gives the same bytes and a second run finds nothing to change.
 */
export function nextGeneration(bundle: Bundle, previous: GenerationRecord | undefined, minQuality?: Quality): NextGeneration {
  const servers = bundle.servers.map((server) => server.id);
  // What the clients were generated at: an inferred type below --min-quality typed nothing.
  const qualities = toolQualities(bundle, minQuality);
  if (previous === undefined) return { record: { servers, qualities, history: [] }, changes: undefined };
  const changes = qualityChanges(previous.qualities, qualities);
  // Tools come and go by whole servers: a server of 60 tools added would push every improvement out.
  const history = [...previous.history, ...changes.filter((change) => change.kind === "improved" || change.kind === "regressed")];
  return { record: { servers, qualities, history: history.slice(-HISTORY_LIMIT) }, changes };
}

type StateTuple = [source: SchemaSource, quality: Quality];

/** The record as JSON: tools grouped by server as tuples, which keeps the index of a 3,000-tool bundle small. */
interface EncodedGeneration {
  servers: [id: string, tools: [tool: string, ...state: StateTuple, observations: number][]][];
  history: [
    kind: QualityChange["kind"],
    server: string,
    tool: string,
    from: StateTuple | null,
    to: StateTuple | null,
    observations: number,
  ][];
}

export function encodeGeneration(record: GenerationRecord): EncodedGeneration {
  const byServer = new Map(record.servers.map((id) => [id, [] as EncodedGeneration["servers"][number][1]]));
  for (const entry of record.qualities) byServer.get(entry.server)?.push([entry.tool, entry.source, entry.quality, entry.observations]);
  return {
    servers: [...byServer],
    history: record.history.map((change) => [
      change.kind,
      change.server,
      change.tool,
      change.from === undefined ? null : [change.from.source, change.from.quality],
      change.to === undefined ? null : [change.to.source, change.to.quality],
      change.observations,
    ]),
  };
}

/** The generation an `index.ts` records; undefined for any other file, or one a person has garbled. */
export function recordedGeneration(text: string): GenerationRecord | undefined {
  return decodeGeneration(readRecord(text).generation);
}

/** A record read back from a file; undefined unless every part of it has the shape encodeGeneration gives. */
export function decodeGeneration(value: unknown): GenerationRecord | undefined {
  const encoded = value as Partial<EncodedGeneration> | null | undefined;
  if (!Array.isArray(encoded?.servers) || !Array.isArray(encoded.history)) return undefined;
  const record: GenerationRecord = { servers: [], qualities: [], history: [] };
  for (const entry of encoded.servers as unknown[]) {
    if (!Array.isArray(entry) || typeof entry[0] !== "string" || !Array.isArray(entry[1])) return undefined;
    const server = entry[0];
    record.servers.push(server);
    for (const tool of entry[1] as unknown[]) {
      if (!Array.isArray(tool) || typeof tool[0] !== "string" || !isState(tool.slice(1, 3)) || !isCount(tool[3])) return undefined;
      record.qualities.push({ server, tool: tool[0], source: tool[1], quality: tool[2], observations: tool[3] });
    }
  }
  for (const entry of encoded.history as unknown[]) {
    if (!Array.isArray(entry) || !KINDS.includes(entry[0]) || typeof entry[1] !== "string" || typeof entry[2] !== "string")
      return undefined;
    const [kind, server, tool, from, to, observations] = entry as unknown[];
    if ((from !== null && !isState(from)) || (to !== null && !isState(to)) || !isCount(observations)) return undefined;
    record.history.push({
      kind: kind as QualityChange["kind"],
      server: server as string,
      tool: tool as string,
      ...(from === null ? {} : { from: { source: from[0], quality: from[1] } }),
      ...(to === null ? {} : { to: { source: to[0], quality: to[1] } }),
      observations,
    });
  }
  return record;
}

const KINDS: readonly unknown[] = ["improved", "regressed", "new", "gone"] satisfies QualityChange["kind"][];

function isState(value: unknown): value is StateTuple {
  return Array.isArray(value) && SOURCES.includes(value[0]) && QUALITIES.includes(value[1]);
}

function isCount(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) >= 0;
}
