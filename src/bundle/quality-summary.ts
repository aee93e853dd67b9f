import { QUALITIES, type Quality, type SchemaSource, SOURCES } from "./quality.js";
import type { ToolQuality } from "./quality-changes.js";

/** Tools by schema source and by quality, each count also as a percentage of the tools. */
export interface QualityCounts {
  tools: number;
  bySource: Record<SchemaSource, number>;
  byQuality: Record<Quality, number>;
  /** Rounded to one decimal; 0 when there are no tools. */
  percentBySource: Record<SchemaSource, number>;
  percentByQuality: Record<Quality, number>;
  /** Results the inferred schemas were learned from. */
  observations: number;
}

/** The counts per server, in the order given, and in total: what `pmcp report` and `pmcp generate` print. */
export interface QualitySummary {
  servers: (QualityCounts & { id: string })[];
  total: QualityCounts;
}

/** Counts the tools of `qualities` per server of `servers` (a server without tools counts none) and in total. */
export function qualitySummary(servers: readonly string[], qualities: readonly ToolQuality[]): QualitySummary {
  const of = (entries: readonly ToolQuality[]): QualityCounts => {
    const bySource = Object.fromEntries(SOURCES.map((source) => [source, 0])) as Record<SchemaSource, number>;
    const byQuality = Object.fromEntries(QUALITIES.map((quality) => [quality, 0])) as Record<Quality, number>;
    let observations = 0;
    for (const entry of entries) {
      bySource[entry.source] += 1;
      byQuality[entry.quality] += 1;
      observations += entry.observations;
    }
    const tools = entries.length;
    const percent = <K extends string>(counts: Record<K, number>) =>
      Object.fromEntries(Object.entries<number>(counts).map(([key, value]) => [key, percentOf(value, tools)])) as Record<K, number>;
    return { tools, bySource, byQuality, percentBySource: percent(bySource), percentByQuality: percent(byQuality), observations };
  };
  const byServer = new Map(servers.map((id) => [id, [] as ToolQuality[]]));
  for (const entry of qualities) byServer.get(entry.server)?.push(entry);
  return { servers: servers.map((id) => ({ id, ...of(byServer.get(id) ?? []) })), total: of(qualities) };
}

function percentOf(part: number, whole: number): number {
  return whole === 0 ? 0 : Math.round((part * 1000) / whole) / 10;
}
