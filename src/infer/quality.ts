import type { Quality } from "../bundle/quality.js";

/** `high` from 100 consistent observations, `medium` from 10, `low` from 1. */
export function qualityOf(consistentObservations: number): Quality {
  if (consistentObservations >= 100) return "high";
  if (consistentObservations >= 10) return "medium";
  if (consistentObservations >= 1) return "low";
  return "none";
}
