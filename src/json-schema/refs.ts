import type { Schema } from "./keywords.js";
import { isObject, joinPointer, pointerKeys, resolvePointer } from "./pointer.js";
import { walkSchemas } from "./traverse.js";

/**
 * What a `$ref` points at within one schema resource. Remote references are never fetched;
 * `pointer` is the target's escaped JSON pointer within the resource.
 */
export type RefTarget =
  | { kind: "remote" }
  | { kind: "malformed" }
  | { kind: "dangling" }
  | { kind: "found"; node: unknown; pointer: string };

/**
 * Whether `schema` is one schema resource (no nested `$id` starts another): then the dynamic
 * scope holds one anchor of each name, and a `$dynamicRef` reaches what a `$ref` would.
 */
export function isSingleResource(schema: unknown): boolean {
  for (const { node } of walkSchemas(schema)) {
    if (node !== schema && typeof node.$id === "string" && !node.$id.startsWith("#")) return false;
  }
  return true;
}

/** Resolves a local `$ref` (`#`, `#/json/pointer`, `#anchor`, percent-encoded or not) against `resource`. */
export function resolveRef(resource: unknown, ref: string): RefTarget {
  if (!ref.startsWith("#")) return { kind: "remote" };
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    return { kind: "malformed" };
  }
  if (fragment !== "" && !fragment.startsWith("/")) return anchored(resource, fragment) ?? { kind: "dangling" };
  const node = resolvePointer(resource, fragment);
  if (node === undefined) return { kind: "dangling" };
  // Re-escaped from the keys it names, so that every spelling of one target gives one pointer.
  return { kind: "found", node, pointer: joinPointer("", pointerKeys(fragment)) };
}

/** The subschema declaring `$anchor`, `$dynamicAnchor` or a fragment `$id` with this name; only schema positions are searched. */
function anchored(resource: unknown, anchor: string): { kind: "found"; node: Schema; pointer: string } | undefined {
  for (const { node, pointer } of walkSchemas(resource)) {
    if (node.$anchor === anchor || node.$dynamicAnchor === anchor || node.$id === `#${anchor}`) return { kind: "found", node, pointer };
  }
  return undefined;
}

/** Longest chain of `$ref`s to `$ref`s that `followRefs` follows: a cycle of bare refs would never end. */
const MAX_HOPS = 32;

/**
 * Where a chain of local `$ref`s starting at `schema` ends (`schema` itself when it has none),
 * or undefined when it leaves `resource`, dangles or loops. Keywords beside a `$ref` are not read.
 */
export function followRefs(resource: unknown, schema: unknown): unknown {
  let node = schema;
  for (let hops = 0; isObject(node) && typeof node.$ref === "string"; hops++) {
    const target = resolveRef(resource, node.$ref);
    if (target.kind !== "found" || hops === MAX_HOPS) return undefined;
    node = target.node;
  }
  return node;
}
