import { errorMessage, type ObservationLog, type Sample } from "@pmcp-codegen/runtime/internal";
import { outputSchemaOf } from "../bundle/output-schema.js";
import { qualityOf } from "../bundle/quality.js";
import { canonicalBundle, jsonText } from "../bundle/serialize.js";
import type { Bundle, BundleServer, InferredTool } from "../bundle/types.js";
import { consistentObservations } from "./consistency.js";
import { findDrift } from "./drift.js";
import { fieldStats } from "./field-stats.js";
import { inferSchema } from "./infer-schema.js";
import { learnableValues, MAX_INFERRED_SAMPLES } from "./learnable-samples.js";

/** One log as read, and the block inferred from these bytes, with the declared schema (JSON text) it was judged against. */
export interface ReadLog {
  log: ObservationLog;
  learned?: { judgedBy: string; block: InferredTool };
}

/** The logs of a folder as read (learn/observation-logs.ts), keyed by `JSON.stringify([server, tool])`, and the files that were no log. */
export interface ReadLogs {
  logs: Map<string, ReadLog>;
  failed: string[];
}

export interface InferResult {
  bundle: Bundle;
  /** One line per tool whose block was (re)computed. */
  inferred: InferredTool[];
  /** Logs that match no tool of the bundle, and the like. */
  warnings: string[];
  /** Logs that could not be read, and tools whose inference failed: each keeps the block it had, and the others are learned. */
  failed: string[];
}

/**
 * Infers a schema for every tool of the bundle that has one of `read`'s logs, and records it in
 * the server's `inferred` list; tools without a log keep the block they had. The tool objects
 * themselves are never touched. A log that carries the block learned from its bytes (judged by the
 * same declared schema) keeps it: only the others are inferred again. Each log used is taken out
 * of `read.logs`; what is left matches no tool.
 */
export async function inferFromLogs(bundle: Bundle, read: ReadLogs): Promise<InferResult> {
  const { logs } = read;
  const failed = [...read.failed];
  const warnings: string[] = [];
  const inferred: InferredTool[] = [];
  const servers: BundleServer[] = [];
  for (const server of bundle.servers) {
    const blocks = new Map((server.inferred ?? []).map((block) => [block.tool, block]));
    for (const tool of server.tools) {
      const log = logs.get(JSON.stringify([server.id, tool.name]));
      if (log === undefined) continue;
      logs.delete(JSON.stringify([server.id, tool.name]));
      if (log.log.samples.length === 0) continue;
      const declared = outputSchemaOf(tool)?.schema;
      // Drift is judged against the declared schema: the same bytes judged against another are learned again.
      const judgedBy = jsonText(declared ?? null);
      let block = log.learned?.judgedBy === judgedBy ? log.learned.block : undefined;
      if (block === undefined) {
        try {
          block = await inferTool(tool.name, log.log, declared);
        } catch (error) {
          // quicktype is a large library: whatever it throws on one tool's samples, the others are still learned.
          failed.push(`"${server.id}/${tool.name}": inference failed (${errorMessage(error)}); the block it had is kept`);
          continue;
        }
        log.learned = { judgedBy, block };
        inferred.push(block);
      }
      blocks.set(tool.name, block);
    }
    const names = new Set(server.tools.map((tool) => tool.name));
    servers.push({ ...server, inferred: [...blocks.values()].filter((block) => names.has(block.tool)) });
  }
  for (const { log } of logs.values()) {
    warnings.push(`observations of "${log.header.server}/${log.header.tool}" match no tool in the bundle; ignored`);
  }
  return { bundle: canonicalBundle(servers), inferred, warnings, failed };
}

/** The schema comes from JSON results only; results in prose or images are counted by content type, and drift ignores them. */
async function inferTool(tool: string, log: ObservationLog, declared: unknown): Promise<InferredTool> {
  const { values, whole, capped } = learnableValues(log.samples);
  const { seen, content } = logCounts(log);
  const learned =
    values.length === 0
      ? { schema: {}, consistent: 0, fields: [], drift: undefined }
      : await learn(values, whole, declared, log.header.redacted);
  return {
    tool,
    schema: learned.schema,
    observations: values.length,
    seen,
    firstSeen: log.header.firstSeen,
    lastSeen: log.header.lastSeen,
    redacted: log.header.redacted,
    consistency: values.length === 0 ? 0 : Math.round((learned.consistent / values.length) * 1000) / 1000,
    // Graded by its JSON answers alone: a tool typed once keeps its type (rt.ParsedResult, whose
    // `.value` is undefined for an answer in prose) when it also answers without JSON, since
    // taking the type back would break the callers that compiled against it.
    quality: qualityOf(learned.consistent),
    fields: learned.fields,
    ...(learned.drift === undefined || learned.drift.length === 0 ? {} : { drift: learned.drift }),
    ...(content === undefined ? {} : { content }),
    ...(capped === undefined ? {} : { capped }),
  };
}

/**
 * A tool's counts as its log has them now: the results observed in all (`seen`), those a schema is
 * learned from (`observations`, its JSON results, at most MAX_INFERRED_SAMPLES) and those without
 * JSON by content type. pmcp dev leaves a block as it was while only its counts grow, so a report
 * takes its counts from here.
 */
export function logCounts(log: ObservationLog): Pick<InferredTool, "observations" | "seen" | "content"> {
  const json = log.samples.filter((sample) => "value" in sample).length;
  const content = contentCounts(log.samples);
  return {
    observations: Math.min(json, MAX_INFERRED_SAMPLES),
    seen: Math.max(log.header.seen, log.samples.length),
    ...(content === undefined ? {} : { content }),
  };
}

/** Drift is judged on the `whole` values only: a value cut down may lack what its schema requires. */
async function learn(values: unknown[], whole: unknown[], declared: unknown, redacted: boolean) {
  const schema = await inferSchema(values);
  return {
    schema,
    consistent: consistentObservations(values),
    fields: fieldStats(schema, values),
    drift: declared === undefined ? undefined : findDrift(declared, whole, redacted),
  };
}

/** Per content block type, the samples without JSON that held one; undefined when every sample was JSON. */
function contentCounts(samples: readonly Sample[]): Record<string, number> | undefined {
  // A Map: a block type is the server's text, "__proto__" included.
  const counts = new Map<string, number>();
  for (const sample of samples) {
    if ("content" in sample) for (const kind of sample.content) counts.set(kind, (counts.get(kind) ?? 0) + 1);
  }
  return samples.some((sample) => "content" in sample) ? Object.fromEntries(counts) : undefined;
}
