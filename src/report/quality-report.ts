import { QUALITIES, type Quality, type SchemaSource, SOURCES, schemaSourceOf } from "../bundle/quality.js";
import type { Bundle, BundleServer } from "../bundle/types.js";

export interface ReportRow {
  tools: number;
  bySource: Record<SchemaSource, number>;
  byQuality: Record<Quality, number>;
  /** Results the inferred schemas were learned from. */
  observations: number;
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

export interface QualityReport {
  servers: (ReportRow & { id: string })[];
  total: ReportRow;
  drift: DriftLine[];
}

/** Tools by schema source and quality, observations, drift and listing cost, per server and in total. */
export function qualityReport(bundle: Bundle): QualityReport {
  const servers = bundle.servers.map((server) => ({ id: server.id, ...serverRow(server) }));
  const total = emptyRow();
  for (const row of servers) {
    total.tools += row.tools;
    total.observations += row.observations;
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
  return { servers, total, drift };
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
    listBytes: 0,
    listTokens: 0,
  };
}
