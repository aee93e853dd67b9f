/**
 * Where subschemas live, for every dialect a tool schema may be written in (draft-04 to
 * 2020-12). Every walker goes through this table, so that none enters data (`enum`,
 * `const`, `default`, `examples`), unknown keywords, or the name maps as if they were schemas.
 */

import { isObject } from "./pointer.js";

/** A JSON Schema object, of any dialect. */
export type Schema = Record<string, unknown>;

/** How a keyword holds its subschemas: one, an array of them, or a map from names to them. */
export type Shape = "schema" | "array" | "map";

const SHAPES: ReadonlyMap<string, Shape> = new Map<string, Shape>([
  ["additionalProperties", "schema"],
  ["additionalItems", "schema"],
  ["items", "schema"],
  ["contains", "schema"],
  ["propertyNames", "schema"],
  ["not", "schema"],
  ["if", "schema"],
  ["then", "schema"],
  ["else", "schema"],
  ["unevaluatedItems", "schema"],
  ["unevaluatedProperties", "schema"],
  ["contentSchema", "schema"],
  ["allOf", "array"],
  ["anyOf", "array"],
  ["oneOf", "array"],
  ["prefixItems", "array"],
  ["properties", "map"],
  ["patternProperties", "map"],
  ["$defs", "map"],
  ["definitions", "map"],
  ["dependentSchemas", "map"],
  // Draft-07: a value is a schema, or a list of property names (which `isSchema` tells apart).
  ["dependencies", "map"],
]);

/** How `value` under `keyword` holds subschemas, or undefined when it holds none. */
export function shapeOf(keyword: string, value: unknown): Shape | undefined {
  // Draft-07 tuples: `items: [...]`.
  if (keyword === "items" && Array.isArray(value)) return "array";
  const shape = SHAPES.get(keyword);
  if (shape === "array") return Array.isArray(value) ? shape : undefined;
  if (shape === "map") return isObject(value) ? shape : undefined;
  return shape;
}

/** A JSON Schema is an object or a boolean. */
export function isSchema(value: unknown): value is Schema | boolean {
  return isObject(value) || typeof value === "boolean";
}

/** One subschema directly below a schema: the keyword holding it and its path below the parent, unescaped. */
export interface Child {
  keyword: string;
  path: readonly string[];
  schema: Schema | boolean;
}

/** The subschemas directly below `node`, in key order. */
export function childrenOf(node: Schema): Child[] {
  const children: Child[] = [];
  for (const [keyword, value] of Object.entries(node)) {
    const shape = shapeOf(keyword, value);
    if (shape === "schema" && isSchema(value)) children.push({ keyword, path: [keyword], schema: value });
    else if (shape === "array") {
      (value as unknown[]).forEach((item, index) => {
        if (isSchema(item)) children.push({ keyword, path: [keyword, String(index)], schema: item });
      });
    } else if (shape === "map") {
      for (const [name, item] of Object.entries(value as Schema))
        if (isSchema(item)) children.push({ keyword, path: [keyword, name], schema: item });
    }
  }
  return children;
}

/**
 * `node` with every subschema directly below it replaced by `replace(child)`; every other
 * value (data, unknown keywords, lists of names) is kept as it is. `node` is not mutated; when
 * `replace` returns every child as it was, `node` itself is returned (nothing is copied).
 */
export function mapChildren(node: Schema, replace: (child: Child) => unknown): Schema {
  // Plain loops, and no copy when nothing changed: every pass of normalize rebuilds every node
  // through here. Object.fromEntries, not assignment, so that a key named `__proto__` stays a key.
  let changed = false;
  const entries: [string, unknown][] = [];
  for (const [keyword, value] of Object.entries(node)) {
    const shape = shapeOf(keyword, value);
    let mapped = value;
    if (shape === "schema") mapped = isSchema(value) ? replace({ keyword, path: [keyword], schema: value }) : value;
    else if (shape === "array") {
      const items = value as unknown[];
      const out: unknown[] = [];
      let same = true;
      for (let index = 0; index < items.length; index++) {
        const item = items[index];
        const next = isSchema(item) ? replace({ keyword, path: [keyword, String(index)], schema: item }) : item;
        same &&= next === item;
        out.push(next);
      }
      if (!same) mapped = out;
    } else if (shape === "map") {
      const members: [string, unknown][] = [];
      let same = true;
      for (const [name, item] of Object.entries(value as Schema)) {
        const next = isSchema(item) ? replace({ keyword, path: [keyword, name], schema: item }) : item;
        same &&= next === item;
        members.push([name, next]);
      }
      if (!same) mapped = Object.fromEntries(members);
    }
    changed ||= mapped !== value;
    entries.push([keyword, mapped]);
  }
  return changed ? Object.fromEntries(entries) : node;
}

/** The subschema an array item at `index` must match, in either tuple spelling (2020-12 `prefixItems`, draft-07 `items: [...]`). */
export function itemSchema(schema: Schema, index: number): unknown {
  if (Array.isArray(schema.prefixItems) && index < schema.prefixItems.length) return schema.prefixItems[index];
  if (!Array.isArray(schema.items)) return schema.items;
  return index < schema.items.length ? schema.items[index] : schema.additionalItems;
}

/** Bounds on numbers, string lengths and item counts. */
export const BOUND_KEYWORDS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
] as const;

/**
 * Constraints by condition (`if`, `not`, `dependent*`), on keys or items by a subschema
 * (`patternProperties`, `propertyNames`, `contains`, `unevaluated*`), or by uniqueness: what
 * consumers that implement only a core subset of JSON Schema leave out.
 */
export const CONDITIONAL_KEYWORDS = [
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "patternProperties",
  "propertyNames",
  "contains",
  "contentSchema",
  "unevaluatedItems",
  "unevaluatedProperties",
  "uniqueItems",
] as const;

/**
 * The instance type each type-specific keyword constrains ("number" covers integers too): on an
 * instance of another type it passes. `format` is not among them: it annotates every type.
 */
export const TYPE_KEYWORDS: ReadonlyMap<string, "object" | "array" | "string" | "number"> = new Map([
  ...[
    "properties",
    "required",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "minProperties",
    "maxProperties",
    "dependentRequired",
    "dependentSchemas",
    "dependencies",
    "unevaluatedProperties",
  ].map((key): [string, "object"] => [key, "object"]),
  ...["items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains", "unevaluatedItems"].map(
    (key): [string, "array"] => [key, "array"],
  ),
  ...["minLength", "maxLength", "pattern"].map((key): [string, "string"] => [key, "string"]),
  ...["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"].map((key): [string, "number"] => [key, "number"]),
]);
