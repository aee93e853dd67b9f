import type { JsonValue } from "@pmcp-codegen/runtime/internal/json";
import { count } from "../count.js";

/** Room kept for the marker that says what was left out. */
const MARKER_ROOM = 64;

/**
 * Nesting a result may have: deeper, JSON.stringify overflows the stack on the way to the agent
 * (at ~4,500 levels on the host, fewer inside the SDK), and no agent reads it anyway.
 */
export const MAX_RESULT_DEPTH = 512;

export function jsonBytes(value: JsonValue): number {
  return Buffer.byteLength(JSON.stringify(value));
}

/**
 * The value cut down so that its JSON fits in `budget` UTF-8 bytes: arrays keep their first
 * items and end with a marker string, objects keep their first keys and gain a "…" key,
 * long strings keep their start; every marker says how much was left out.
 */
export function truncateJson(value: JsonValue, budget: number): JsonValue {
  if (jsonBytes(value) <= budget) return value;
  if (typeof value === "string") return truncateString(value, budget);
  if (Array.isArray(value)) return truncateArray(value, budget);
  if (typeof value === "object" && value !== null) return truncateObject(value, budget);
  return `…[${count(jsonBytes(value), "byte")} left out]`;
}

function truncateString(value: string, budget: number): string {
  let kept = value.slice(0, Math.max(0, budget - MARKER_ROOM));
  // Escapes make JSON longer than the text: cut until it fits.
  while (kept.length > 0 && jsonBytes(kept) > budget - MARKER_ROOM) kept = kept.slice(0, Math.floor(kept.length * 0.9));
  return `${kept}…[${count(value.length - kept.length, "character")} left out]`;
}

function truncateArray(value: JsonValue[], budget: number): JsonValue[] {
  const kept: JsonValue[] = [];
  let used = 2 + MARKER_ROOM;
  let cut = false;
  for (const item of value) {
    const size = jsonBytes(item) + 1;
    if (used + size > budget) {
      const room = budget - used - 1;
      cut = room >= MARKER_ROOM * 2;
      if (cut) kept.push(truncateJson(item, room));
      break;
    }
    kept.push(item);
    used += size;
  }
  // A member cut down is kept, so it is not counted as left out; the marker names it.
  const last = cut ? `; item ${kept.length - 1} cut short` : "";
  kept.push(`…[${value.length - kept.length} of ${count(value.length, "item")} left out${last}]`);
  return kept;
}

function truncateObject(value: { [key: string]: JsonValue }, budget: number): { [key: string]: JsonValue } {
  const entries = Object.entries(value);
  const kept: [string, JsonValue][] = [];
  let used = 2 + MARKER_ROOM;
  let cut = false;
  for (const [key, item] of entries) {
    const keySize = jsonBytes(key) + 2;
    const size = keySize + jsonBytes(item);
    if (used + size > budget) {
      const room = budget - used - keySize;
      cut = room >= MARKER_ROOM * 2;
      if (cut) kept.push([key, truncateJson(item, room)]);
      break;
    }
    kept.push([key, item]);
    used += size;
  }
  // defineProperty, not assignment, so that a "__proto__" key stays a plain key.
  const result: { [key: string]: JsonValue } = {};
  for (const [key, item] of kept) Object.defineProperty(result, key, { value: item, enumerable: true, writable: true, configurable: true });
  const last = cut ? `; ${JSON.stringify(kept.at(-1)?.[0])} cut short` : "";
  result["…"] = `${entries.length - kept.length} of ${count(entries.length, "key")} left out${last}`;
  return result;
}
