import { schemaSourceOf } from "../bundle/quality.js";
import { type QualityChange, toolQualities } from "../bundle/quality-changes.js";
import { type QualityCounts, qualitySummary } from "../bundle/quality-summary.js";
import type { Bundle, BundleServer, Tool } from "../bundle/types.js";
import type { GenerationRecord } from "../codegen/generation-record.js";
import { logCounts, type ReadLog } from "../infer/infer-bundle.js";
import { mostUsed, type Recommendations, recommendationsFor, type UsageLine } from "./recommendations.js";

export interface ReportRow extends QualityCounts {
  /**
   * Tools of unknown source whose observed results all held no JSON (prose, images, links):
   * unknown because of how they answer, not for want of observations. The other unknown tools could be learned.
   */
  noJson: number;
  /** Those tools by the content block types they answered with; a tool counts under each of its types. */
  byContent: Record<string, number>;
  /** Size of the server's `tools/list` result as JSON: what an agent's context pays for its tools. */
  listBytes: number;
  /** Estimated tokens for those bytes (bytes / 4, the usual rule of thumb for JSON and English). */
  listTokens: number;
}

export interface DriftLine {
  server: string;
  tool: string;
  path: string;
  message: string;
  count: number;
  observations: number;
}

/** A tool of unknown source that answered without JSON, and how many of its results held each content type. */
export interface ContentLine {
  server: string;
  tool: string;
  content: Record<string, number>;
}

export interface QualityReport {
  servers: (ReportRow & { id: string })[];
  total: ReportRow;
  drift: DriftLine[];
  noJson: ContentLine[];
  /** The improvements the generated clients' history records, newest first; null when no generation is recorded. */
  recentImprovements: QualityChange[] | null;
  recommendations: Recommendations;
  /** The most used tools by observed results, most first. */
  mostUsed: UsageLine[];
}

export interface ReportContext {
  /** What the generated clients' `index.ts` records; undefined when there is none. */
  generation?: GenerationRecord | undefined;
  /** The folder recommended discover command lines write observations to (pmcp.config `observe.dir`; default `observations/`). */
  observations?: string | undefined;
  /** The server ids pmcp.config defines: discover reaches them by their entry (`--server`). */
  configured?: ReadonlySet<string> | undefined;
  /** The observation logs as read now (readLogs), which every count of a learned tool is taken from. */
  logs?: ReadonlyMap<string, ReadLog> | undefined;
}

/**
 * Tools by schema source and quality, observations, drift and listing cost, per server and in
 * total; the recent improvements, recommendations and the most used tools.
 */
export function qualityReport(recorded: Bundle, context: ReportContext = {}): QualityReport {
  const bundle = context.logs === undefined ? recorded : withLoggedCounts(recorded, context.logs);
  const qualities = toolQualities(bundle);
  const counts = qualitySummary(
    bundle.servers.map((server) => server.id),
    qualities,
  );
  const servers = bundle.servers.map((server, index) => ({ ...counts.servers[index]!, ...serverRow(server) }));
  const total: ReportRow = { ...counts.total, ...emptyRow() };
  for (const row of servers) {
    total.noJson += row.noJson;
    for (const [kind, tools] of Object.entries(row.byContent)) total.byContent[kind] = (total.byContent[kind] ?? 0) + tools;
    total.listBytes += row.listBytes;
    total.listTokens += row.listTokens;
  }
  const drift = bundle.servers.flatMap((server) =>
    (server.inferred ?? []).flatMap((block) =>
      (block.drift ?? []).map((item) => ({ server: server.id, tool: block.tool, ...item, observations: block.observations })),
    ),
  );
  const noJson = bundle.servers.flatMap((server) =>
    answersWithoutJson(server).map(({ tool, content }) => ({ server: server.id, tool: tool.name, content })),
  );
  const recentImprovements = context.generation?.history.filter((change) => change.kind === "improved").reverse() ?? null;
  const recommendations = recommendationsFor(bundle, context.observations, context.configured);
  return { servers, total, drift, noJson, recentImprovements, recommendations, mostUsed: mostUsed(bundle) };
}

/**
 * The bundle with each learned tool's counts as its log has them: a block is rewritten when what it
 * learned changes, not for every call, so the bundle's counts are as of the last change. The
 * schemas, qualities and drift stay the bundle's: they are what the clients were generated from.
 */
function withLoggedCounts(bundle: Bundle, logs: ReadonlyMap<string, ReadLog>): Bundle {
  const servers = bundle.servers.map((server) => {
    if (server.inferred === undefined) return server;
    const inferred = server.inferred.map((block) => {
      const log = logs.get(JSON.stringify([server.id, block.tool]));
      if (log === undefined) return block;
      const { content: _content, ...rest } = block;
      return { ...rest, ...logCounts(log.log) };
    });
    return { ...server, inferred };
  });
  return { ...bundle, servers };
}

/** Tools of unknown source that were observed answering, never with JSON. */
function answersWithoutJson(server: BundleServer): { tool: Tool; content: Record<string, number> }[] {
  const inferred = new Map((server.inferred ?? []).map((block) => [block.tool, block]));
  return server.tools.flatMap((tool) => {
    const block = inferred.get(tool.name);
    return block?.content !== undefined && schemaSourceOf(tool, block).source === "unknown" ? [{ tool, content: block.content }] : [];
  });
}

/** What the report adds to a server's counts. */
type ServerFacts = Omit<ReportRow, keyof QualityCounts>;

function serverRow(server: BundleServer): ServerFacts {
  const row = emptyRow();
  for (const { content } of answersWithoutJson(server)) {
    row.noJson += 1;
    for (const kind of Object.keys(content)) row.byContent[kind] = (row.byContent[kind] ?? 0) + 1;
  }
  row.listBytes = Buffer.byteLength(JSON.stringify({ tools: server.tools }), "utf8");
  row.listTokens = Math.ceil(row.listBytes / 4);
  return row;
}

function emptyRow(): ServerFacts {
  return {
    noJson: 0,
    byContent: {},
    listBytes: 0,
    listTokens: 0,
  };
}
