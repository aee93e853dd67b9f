import { jsonTypeOf } from "@pmcp-codegen/runtime/internal/json";
import { isObject } from "../json-schema/pointer.js";

/** One place in the observed values: a path of actual keys and array indexes, never folded. */
interface Place {
  /** How many values here had each kind (integer counted as number; null is no kind). */
  readonly kinds: Map<string, number>;
  readonly children: Map<string | number, Place>;
  usual?: string;
}

/**
 * The observations in which every value has the kind its place usually has: the kind most
 * values there have (the first seen, on a tie). A place is a path of actual keys and array
 * indexes, so a field is judged alike whether quicktype made its object a class or a map, and
 * whatever the number of keys beside it or items around it; integer counts as number, and null
 * as no kind at all, since an optional value is not a varying one.
 */
export function consistentObservations(values: readonly unknown[]): number {
  const root = place();
  for (const value of values) count(root, value);
  return values.filter((value) => usualEverywhere(root, value)).length;
}

function place(): Place {
  return { kinds: new Map(), children: new Map() };
}

function count(here: Place, value: unknown): void {
  const kind = kindOf(value);
  if (kind === undefined) return;
  here.kinds.set(kind, (here.kinds.get(kind) ?? 0) + 1);
  for (const [key, child] of entries(value)) {
    let next = here.children.get(key);
    if (next === undefined) {
      next = place();
      here.children.set(key, next);
    }
    count(next, child);
  }
}

function usualEverywhere(here: Place, value: unknown): boolean {
  const kind = kindOf(value);
  if (kind === undefined) return true;
  here.usual ??= [...here.kinds].reduce((best, entry) => (entry[1] > best[1] ? entry : best))[0];
  if (kind !== here.usual) return false;
  for (const [key, child] of entries(value)) if (!usualEverywhere(here.children.get(key) as Place, child)) return false;
  return true;
}

function entries(value: unknown): Iterable<[string | number, unknown]> {
  if (Array.isArray(value)) return value.entries();
  return isObject(value) ? Object.entries(value) : [];
}

/** A value's JSON type with integer counted as number, and null as no type: an optional value is not a varying one. */
export function kindOf(value: unknown): string | undefined {
  return value === null ? undefined : jsonTypeOf(value);
}
