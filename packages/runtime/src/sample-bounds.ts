import { jsonDepth } from "./json-value.js";

/**
 * Levels of arrays and objects a sample keeps: one at this level is kept empty. quicktype
 * overflows its stack near 900 levels, and JSON.stringify near 5,000; results this deep are
 * no data a type is learned from.
 */
export const MAX_SAMPLE_DEPTH = 64;

/** UTF-8 bytes of a sample's value as JSON: a bigger result is cut down to fit. */
export const MAX_SAMPLE_BYTES = 64 * 1024;

/**
 * UTF-8 bytes of a log's sample lines all told: beyond, samples picked at random leave, so what
 * stays is still a uniform sample. A flush then reads and writes a bounded file whatever the results.
 */
export const MAX_LOG_BYTES = 8 * 1024 * 1024;

/** How a sample was made to fit: nested too deep, or too large. */
export type SampleCut = "depth" | "size";

export interface BoundedSample {
  value: unknown;
  /** The value as JSON. */
  json: string;
  /** Empty when the value was kept as it came. */
  cut: SampleCut[];
}

/**
 * A result made into a sample a schema can still be learned from: every value keeps its
 * type, only less of it is kept. Past MAX_SAMPLE_DEPTH an array or object is kept empty.
 * Past MAX_SAMPLE_BYTES, arrays keep their first items, objects share the room between
 * their keys (small values whole, the large ones cut; keys left out only when even their
 * names do not fit), and strings keep their start.
 */
export function boundSample(value: unknown): BoundedSample {
  const json = shallowEnough(value);
  if (json !== undefined && Buffer.byteLength(json) <= MAX_SAMPLE_BYTES) return { value, json, cut: [] };
  const shallow = { cut: false };
  const kept = json === undefined ? cutDepth(value, 1, shallow) : value;
  const cut: SampleCut[] = shallow.cut ? ["depth"] : [];
  const keptJson = json ?? JSON.stringify(kept);
  if (Buffer.byteLength(keptJson) <= MAX_SAMPLE_BYTES) return { value: kept, json: keptJson, cut };
  // Sizes are measured as the cut goes down, once per array and object it reaches: most of a large value is never visited.
  const sizes = new WeakMap<object, number>();
  if (typeof kept === "object" && kept !== null) sizes.set(kept, Buffer.byteLength(keptJson));
  const fitted = fit(kept, MAX_SAMPLE_BYTES, sizes);
  return { value: fitted, json: JSON.stringify(fitted), cut: [...cut, "size"] };
}

/** The value's JSON when it nests no deeper than MAX_SAMPLE_DEPTH, read without recursion of ours. */
function shallowEnough(value: unknown): string | undefined {
  let json: string;
  try {
    json = JSON.stringify(value);
  } catch (error) {
    // Nested deeper than the stack: cut down below, without JSON.stringify.
    if (error instanceof RangeError) return undefined;
    throw error;
  }
  return jsonDepth(json) < MAX_SAMPLE_DEPTH ? json : undefined;
}

/** A copy with arrays and objects at MAX_SAMPLE_DEPTH kept empty. */
function cutDepth(value: unknown, level: number, shallow: { cut: boolean }): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (level >= MAX_SAMPLE_DEPTH) {
    if (Array.isArray(value) ? value.length > 0 : Object.keys(value).length > 0) shallow.cut = true;
    return Array.isArray(value) ? [] : {};
  }
  if (Array.isArray(value)) return value.map((item) => cutDepth(item, level + 1, shallow));
  // fromEntries, not assignment: a `__proto__` key stays a key.
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, cutDepth(item, level + 1, shallow)]));
}

/** The JSON bytes of a value, measured once per array and object. */
function sizeOf(value: unknown, sizes: WeakMap<object, number>): number {
  if (typeof value !== "object" || value === null) return jsonBytes(value);
  let size = sizes.get(value);
  if (size === undefined) {
    size = jsonBytes(value);
    sizes.set(value, size);
  }
  return size;
}

function jsonBytes(value: unknown): number {
  return Buffer.byteLength(JSON.stringify(value) ?? "null");
}

/** The least room a value takes once cut: an empty array, object or string; a number, boolean or null as it is. */
function leastOf(value: unknown, sizes: WeakMap<object, number>): number {
  return typeof value === "object" || typeof value === "string" ? (value === null ? 4 : 2) : sizeOf(value, sizes);
}

/** `value` cut down to at most `budget` bytes of JSON; `budget` is at least the value's least room. */
function fit(value: unknown, budget: number, sizes: WeakMap<object, number>): unknown {
  if (sizeOf(value, sizes) <= budget) return value;
  if (typeof value === "string") return fitString(value, budget);
  if (Array.isArray(value)) return fitArray(value, budget, sizes);
  if (typeof value === "object" && value !== null) return fitObject(value as Record<string, unknown>, budget, sizes);
  return value;
}

function fitString(value: string, budget: number): string {
  let kept = value.slice(0, Math.max(0, budget - 2));
  // Escapes and multi-byte characters make the JSON longer than the text: shorten until it fits.
  while (jsonBytes(kept) > budget) kept = kept.slice(0, Math.floor(kept.length * 0.9));
  return kept;
}

/** The first items whole, then one cut down to the room left if it still fits at all. */
function fitArray(value: unknown[], budget: number, sizes: WeakMap<object, number>): unknown[] {
  const kept: unknown[] = [];
  let used = 2;
  for (const item of value) {
    const room = budget - used - (kept.length > 0 ? 1 : 0);
    if (sizeOf(item, sizes) <= room) {
      kept.push(item);
      used += sizeOf(item, sizes) + (kept.length > 1 ? 1 : 0);
      continue;
    }
    if (leastOf(item, sizes) <= room) kept.push(fit(item, room, sizes));
    break;
  }
  return kept;
}

/**
 * Every key whose name fits, with the room left shared out: values smaller than their share
 * whole, and what they leave over shared between the larger ones, each cut to its share.
 */
function fitObject(value: Record<string, unknown>, budget: number, sizes: WeakMap<object, number>): Record<string, unknown> {
  const entries: { key: string; item: unknown; name: number; least: number; size: number; room: number }[] = [];
  // Each entry counts a comma: one more than the JSON has, which only leaves a byte to spare.
  let left = budget - 2;
  for (const [key, item] of Object.entries(value)) {
    const name = jsonBytes(key) + 2;
    const least = leastOf(item, sizes);
    if (name + least > left) break;
    left -= name + least;
    entries.push({ key, item, name, least, size: sizeOf(item, sizes), room: least });
  }
  const bySize = [...entries].sort((a, b) => a.size - b.size);
  for (const [index, entry] of bySize.entries()) {
    const share = Math.floor(left / (bySize.length - index));
    const extra = Math.min(entry.size - entry.least, share);
    entry.room += extra;
    left -= extra;
  }
  return Object.fromEntries(entries.map(({ key, item, room }) => [key, fit(item, room, sizes)]));
}
