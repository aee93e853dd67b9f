import { isObject } from "../json-schema/pointer.js";
import { kindOf } from "./consistency.js";

/**
 * From this many distinct keys whose values are all of one type, an object is a record: 20 is
 * quicktype's own threshold for a map of non-strings, which for strings asks 50 and names that
 * look random, so an environment (`PATH`, `HOME`, …) stayed a class whose every variable was a
 * required key. Past twenty keys of one type the names are data (variables, ids, headers, days),
 * and a record types every one of them, while a class from a few samples would require each.
 */
const MANY_KEYS = 20;

/**
 * Keys vary between samples when at least this many distinct keys were seen, in at least two
 * objects, and a key is on average missing from at least half of them: the keys of an object
 * type are mostly required, and a few optional ones keep the average well above a half, while
 * the keys of a record (ids, names, dates) each turn up in a few samples only; and no key is in
 * every object, as a tag (`type`) is in each of a union's members. Fewer keys than
 * this (`{ result }` or `{ error }`) are as likely an object with optional fields.
 */
const VARYING_MIN_KEYS = 4;
const VARYING_MAX_PRESENCE = 0.5;

/** Places deeper than this are left as they are: samples come bounded far below it (MAX_SAMPLE_DEPTH). */
const MAX_DEPTH = 256;

/** One place in the samples, found by following keys and array items from the root. */
interface Place {
  /** A record's keys, each by the name it is given for quicktype; absent for an object that stays an object. */
  record?: Map<string, string>;
  /** A record's values, or an object's values by key. */
  values?: Place;
  keys: Map<string, Place>;
  items?: Place;
}

/**
 * The samples with the keys of every object judged a record (by `isRecord`) renamed `0`, `1`, …:
 * quicktype makes an object whose keys are all digits a map, its values' types unified, which the
 * schema states as `additionalProperties` with no `properties`. Only the samples quicktype sees are
 * renamed; statistics are taken on the values as observed.
 */
export function withRecordsMarked(values: readonly unknown[]): unknown[] {
  const root = placeOf(values, 0);
  return values.map((value) => rewrite(value, root));
}

/** Whether the objects seen at one place hold a record: many keys of one type, or keys that vary between samples. */
export function isRecord(objects: readonly Record<string, unknown>[]): boolean {
  const presence = new Map<string, number>();
  const kinds = new Set<string>();
  for (const object of objects) {
    for (const [key, value] of Object.entries(object)) {
      presence.set(key, (presence.get(key) ?? 0) + 1);
      const kind = kindOf(value);
      if (kind !== undefined) kinds.add(kind);
    }
  }
  if (kinds.size !== 1) return false;
  const keys = presence.size;
  if (keys >= MANY_KEYS) return true;
  // A key in every object is a field (`type`, `id`) of objects that differ in their other fields.
  if (objects.length < 2 || [...presence.values()].some((count) => count === objects.length)) return false;
  const occurrences = [...presence.values()].reduce((sum, count) => sum + count, 0);
  return keys >= VARYING_MIN_KEYS && occurrences / (keys * objects.length) <= VARYING_MAX_PRESENCE;
}

function placeOf(values: readonly unknown[], depth: number): Place {
  const place: Place = { keys: new Map() };
  if (depth >= MAX_DEPTH) return place;
  const arrays = values.filter((value): value is unknown[] => Array.isArray(value));
  if (arrays.length > 0) place.items = placeOf(arrays.flat(), depth + 1);
  const objects = values.filter(isObject);
  if (objects.length === 0) return place;
  if (isRecord(objects)) {
    const names = new Map<string, string>();
    for (const object of objects) for (const key of Object.keys(object)) if (!names.has(key)) names.set(key, String(names.size));
    place.record = names;
    place.values = placeOf(
      objects.flatMap((object) => Object.values(object)),
      depth + 1,
    );
    return place;
  }
  // A Map: a key is the server's text, `__proto__` included.
  const byKey = new Map<string, unknown[]>();
  for (const object of objects) {
    for (const [key, value] of Object.entries(object)) {
      const seen = byKey.get(key);
      if (seen === undefined) byKey.set(key, [value]);
      else seen.push(value);
    }
  }
  for (const [key, seen] of byKey) place.keys.set(key, placeOf(seen, depth + 1));
  return place;
}

function rewrite(value: unknown, place: Place | undefined): unknown {
  if (place === undefined) return value;
  if (Array.isArray(value)) return place.items === undefined ? value : value.map((item) => rewrite(item, place.items));
  if (!isObject(value)) return value;
  const { record } = place;
  if (record !== undefined)
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [record.get(key) as string, rewrite(item, place.values)]));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, rewrite(item, place.keys.get(key))]));
}
