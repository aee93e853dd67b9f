import { outputSchemaOf } from "./output-schema.js";
import type { InferredTool, Tool } from "./types.js";

/** Where a tool's result type comes from. */
export type SchemaSource = "declared" | "annotated" | "inferred" | "hybrid" | "unknown";
/** How far an inferred schema can be trusted; the bundle format defines the values. */
export type Quality = InferredTool["quality"];

export const SOURCES: readonly SchemaSource[] = ["declared", "annotated", "hybrid", "inferred", "unknown"];

/**
 * The lowest quality of inferred schema that types a tool unless told otherwise, for `pmcp generate`
 * and code mode alike (`serve exec --learn` included): one observation is enough, since a tool typed
 * by inference keeps the rt.ToolResult surface (`.text`, `.get()`, …) beside its typed `.value`, and
 * a program or client written against the untyped tool still compiles.
 */
export const DEFAULT_MIN_QUALITY: Quality = "low";

/** Lowest first, so a quality's index orders it. */
export const QUALITIES: readonly Quality[] = ["none", "low", "medium", "high"];

export function atLeast(quality: Quality, minimum: Quality): boolean {
  return QUALITIES.indexOf(quality) >= QUALITIES.indexOf(minimum);
}

/**
 * A tool's schema source and quality: a schema the server declares (standard
 * `outputSchema`, or PMCP's legacy annotation) is `high` whatever was observed, and with
 * observations beside it the source is `hybrid`; otherwise the inferred schema's quality.
 */
export function schemaSourceOf(tool: Tool, inferred: InferredTool | undefined): { source: SchemaSource; quality: Quality } {
  const declared = outputSchemaOf(tool);
  const observed = inferred !== undefined && inferred.observations > 0;
  if (declared !== undefined)
    return { source: observed ? "hybrid" : declared.pointer === "/outputSchema" ? "declared" : "annotated", quality: "high" };
  if (observed) return { source: "inferred", quality: inferred.quality };
  return { source: "unknown", quality: "none" };
}

/** `high` from 100 consistent observations, `medium` from 10, `low` from 1. */
export function qualityOf(consistentObservations: number): Quality {
  if (consistentObservations >= 100) return "high";
  if (consistentObservations >= 10) return "medium";
  if (consistentObservations >= 1) return "low";
  return "none";
}
