/**
 * JSON values: their type, the check that a value is one, equality, and the depth of a JSON
 * text. A leaf: it imports nothing, so that pmcp-codegen's pure layers (the IR, diff) can use it
 * without loading zod or the MCP client (`@pmcp-codegen/runtime/internal/json`).
 */

/** A value JSON can carry: what `JSON.parse` returns. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/**
 * A value's JSON type, as a schema's `type` names it: `null`, `array` and `object` told apart
 * (typeof says "object" for all three), `integer` for whole numbers when `integers` asks for it
 * (else they are `number`, as JSON itself has only numbers).
 */
export function jsonTypeOf(value: unknown, options: { integers?: boolean } = {}): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (options.integers === true && Number.isInteger(value)) return "integer";
  return typeof value;
}

/** A plain JSON value all the way down: finite numbers, plain objects and arrays. An explicit stack: values may nest thousands deep. */
export function isJsonValue(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (next === null || typeof next === "string" || typeof next === "boolean") continue;
    if (typeof next === "number") {
      if (!Number.isFinite(next)) return false;
      continue;
    }
    if (Array.isArray(next)) pending.push(...next);
    else if (typeof next === "object" && [Object.prototype, null].includes(Object.getPrototypeOf(next)))
      pending.push(...Object.values(next));
    else return false;
  }
  return true;
}

/** Deep equality of JSON values; key order does not matter. An explicit stack: values may nest thousands deep. */
export function jsonEquals(a: unknown, b: unknown): boolean {
  const pending: [unknown, unknown][] = [[a, b]];
  while (pending.length > 0) {
    const [x, y] = pending.pop()!;
    if (x === y) continue;
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null) return false;
    if (Array.isArray(x) !== Array.isArray(y)) return false;
    if (Array.isArray(x) && Array.isArray(y)) {
      if (x.length !== y.length) return false;
      for (const [index, item] of x.entries()) pending.push([item, y[index]]);
      continue;
    }
    const left = x as Record<string, unknown>;
    const right = y as Record<string, unknown>;
    const keys = Object.keys(left);
    if (keys.length !== Object.keys(right).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(right, key)) return false;
      pending.push([left[key], right[key]]);
    }
  }
  return true;
}

/** How deep arrays and objects nest in a JSON text, read without parsing it (so without recursion). */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index);
    if (inString) {
      if (char === 0x5c) index++;
      else if (char === 0x22) inString = false;
    } else if (char === 0x22) inString = true;
    else if (char === 0x5b || char === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (char === 0x5d || char === 0x7d) depth--;
  }
  return deepest;
}

/** Where a value stops being JSON, and why (see notJsonAt). */
export interface NotJson {
  /** The JSON pointer of the part that is not JSON; "" for the value itself, or where the place is not known (a cycle). */
  pointer: string;
  reason: string;
}

/**
 * Where a value has no JSON text that says what it says, as JSON.stringify would write it (after each
 * `toJSON`): a number that is not finite, which JSON.stringify writes as `null` without a word (JSON.parse
 * gives `Infinity` for `1e400`), a BigInt, a cycle. Undefined when the value's JSON text is exactly it.
 */
export function notJsonAt(value: unknown): NotJson | undefined {
  const written = jsonTextOf(value);
  return "problem" in written ? written.problem : undefined;
}

// Taken when the module is evaluated: in code mode's sandbox (which bundles this module) that is before
// the program runs, so a program that replaces them changes nothing here.
const stringify = JSON.stringify;
const isFiniteNumber = Number.isFinite;
const MapType = Map;
const NumberType = Number;

/** The JSON text of a value as JSON.stringify writes it (undefined for a value it writes nothing for), or where it is not JSON (notJsonAt). */
export function jsonTextOf(value: unknown): { text: string | undefined } | { problem: NotJson } {
  // Each object's pointer, set as the stringifier reaches it: its members come next, with it as `this`.
  const pointers = new MapType<unknown, string>();
  let root = true;
  function check(this: unknown, key: string, item: unknown): unknown {
    const pointer = root ? "" : `${pointers.get(this) ?? ""}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
    root = false;
    const number = item instanceof NumberType ? item.valueOf() : item;
    if (typeof number === "number" && !isFiniteNumber(number)) throw new NotJsonValue(pointer, `${number} is not a number JSON can carry`);
    if (typeof item === "bigint") throw new NotJsonValue(pointer, "a BigInt is not a number JSON can carry");
    if (typeof item === "object" && item !== null) pointers.set(item, pointer);
    return item;
  }
  try {
    return { text: stringify(value, check) as string | undefined };
  } catch (error) {
    if (error instanceof NotJsonValue) return { problem: { pointer: error.pointer, reason: error.message } };
    return { problem: { pointer: "", reason: error instanceof Error ? error.message : String(error) } };
  }
}

class NotJsonValue extends Error {
  constructor(
    readonly pointer: string,
    reason: string,
  ) {
    super(reason);
  }
}
