import { isObject } from "./pointer.js";

/**
 * Where subschemas live, for every dialect a tool schema may be written in (draft-04 to
 * 2020-12). Every walker goes through this table, so that none enters data (`enum`,
 * `const`, `default`, `examples`), unknown keywords, or the name maps as if they were schemas.
 */

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
 * value (data, unknown keywords, lists of names) is kept as it is. `node` is not mutated.
 */
export function mapChildren(node: Schema, replace: (child: Child) => unknown): Schema {
  return Object.fromEntries(
    Object.entries(node).map(([keyword, value]): [string, unknown] => {
      const shape = shapeOf(keyword, value);
      const map = (item: unknown, path: string[]) => (isSchema(item) ? replace({ keyword, path, schema: item }) : item);
      if (shape === "schema") return [keyword, map(value, [keyword])];
      if (shape === "array") return [keyword, (value as unknown[]).map((item, index) => map(item, [keyword, String(index)]))];
      if (shape === "map")
        return [keyword, Object.fromEntries(Object.entries(value as Schema).map(([name, item]) => [name, map(item, [keyword, name])]))];
      return [keyword, value];
    }),
  );
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
