import { QUALITIES, type Quality, type SchemaSource, SOURCES, schemaSourceOf } from "../bundle/quality.js";
import type { Bundle, BundleServer, Tool } from "../bundle/types.js";

export interface ReportRow {
  tools: number;
  bySource: Record<SchemaSource, number>;
  byQuality: Record<Quality, number>;
  /** Results the inferred schemas were learned from. */
  observations: number;
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
}

/** Tools by schema source and quality, observations, drift and listing cost, per server and in total. */
export function qualityReport(bundle: Bundle): QualityReport {
  const servers = bundle.servers.map((server) => ({ id: server.id, ...serverRow(server) }));
  const total = emptyRow();
  for (const row of servers) {
    total.tools += row.tools;
    total.observations += row.observations;
    total.noJson += row.noJson;
    for (const [kind, tools] of Object.entries(row.byContent)) total.byContent[kind] = (total.byContent[kind] ?? 0) + tools;
    total.listBytes += row.listBytes;
    total.listTokens += row.listTokens;
    for (const source of SOURCES) total.bySource[source] += row.bySource[source];
    for (const quality of QUALITIES) total.byQuality[quality] += row.byQuality[quality];
  }
  const drift = bundle.servers.flatMap((server) =>
    (server.inferred ?? []).flatMap((block) =>
      (block.drift ?? []).map((item) => ({ server: server.id, tool: block.tool, ...item, observations: block.observations })),
    ),
  );
  const noJson = bundle.servers.flatMap((server) =>
    answersWithoutJson(server).map(({ tool, content }) => ({ server: server.id, tool: tool.name, content })),
  );
  return { servers, total, drift, noJson };
}

/** Tools of unknown source that were observed answering, never with JSON. */
function answersWithoutJson(server: BundleServer): { tool: Tool; content: Record<string, number> }[] {
  const inferred = new Map((server.inferred ?? []).map((block) => [block.tool, block]));
  return server.tools.flatMap((tool) => {
    const block = inferred.get(tool.name);
    return block?.content !== undefined && schemaSourceOf(tool, block).source === "unknown" ? [{ tool, content: block.content }] : [];
  });
}

function serverRow(server: BundleServer): ReportRow {
  const row = emptyRow();
  const inferred = new Map((server.inferred ?? []).map((block) => [block.tool, block]));
  for (const tool of server.tools) {
    const block = inferred.get(tool.name);
    const { source, quality } = schemaSourceOf(tool, block);
    row.tools += 1;
    row.bySource[source] += 1;
    row.byQuality[quality] += 1;
    row.observations += block?.observations ?? 0;
  }
  for (const { content } of answersWithoutJson(server)) {
    row.noJson += 1;
    for (const kind of Object.keys(content)) row.byContent[kind] = (row.byContent[kind] ?? 0) + 1;
  }
  row.listBytes = Buffer.byteLength(JSON.stringify({ tools: server.tools }), "utf8");
  row.listTokens = Math.ceil(row.listBytes / 4);
  return row;
}

function emptyRow(): ReportRow {
  return {
    tools: 0,
    bySource: Object.fromEntries(SOURCES.map((source) => [source, 0])) as Record<SchemaSource, number>,
    byQuality: Object.fromEntries(QUALITIES.map((quality) => [quality, 0])) as Record<Quality, number>,
    observations: 0,
    noJson: 0,
    byContent: {},
    listBytes: 0,
    listTokens: 0,
  };
}
