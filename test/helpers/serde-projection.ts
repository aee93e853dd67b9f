import { BOUND_KEYWORDS, CONDITIONAL_KEYWORDS, type Schema } from "../../src/json-schema/keywords.js";
import { isObject } from "../../src/json-schema/pointer.js";
import { resolveRef } from "../../src/json-schema/refs.js";
import { mapSchemas, walkSchemas } from "../../src/json-schema/traverse.js";

/**
 * Keywords a serde type cannot check: bounds, string formats and patterns, key and item counts,
 * and every constraint by condition or on keys (see CONDITIONAL_KEYWORDS), whose verdict depends on
 * values serde's derive never compares. What stays is the shape serde reads: `type`, `required`,
 * `properties`, `enum`/`const`, `additionalProperties: false`, tuples (`prefixItems`, `items: false`),
 * `anyOf`, `allOf`, `$ref`.
 */
const UNCHECKED = new Set<string>([
  ...BOUND_KEYWORDS,
  ...CONDITIONAL_KEYWORDS,
  "pattern",
  "format",
  "minProperties",
  "maxProperties",
  "minContains",
  "maxContains",
]);

/**
 * The schema as serde can check it: UNCHECKED keywords removed; `oneOf` read as `anyOf` (serde takes
 * the first member that fits, never counting the others); beside `patternProperties`, the
 * `additionalProperties` too, since which keys it covers depends on the patterns.
 */
export function serdeProjection(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  return mapSchemas(schema, (node) => {
    const kept = Object.fromEntries(
      Object.entries(node).filter(
        ([keyword]) => !UNCHECKED.has(keyword) && !(keyword === "additionalProperties" && "patternProperties" in node),
      ),
    );
    if (!("oneOf" in kept)) return kept;
    const { oneOf, ...rest } = kept;
    return "anyOf" in rest ? { ...rest, allOf: [...((rest.allOf as unknown[]) ?? []), { anyOf: oneOf }] } : { ...rest, anyOf: oneOf };
  });
}

/** The constructs a Rust type must get exactly right, as a schema spells them; what the figures are counted by. */
export const CONSTRUCTS = [
  "closed object",
  "open object",
  "map",
  "required-nullable",
  "optional-nullable",
  "integer",
  "number",
  "string enum",
  "const",
  "tagged union",
  "untagged union",
  "tuple",
  "recursive",
] as const;
export type Construct = (typeof CONSTRUCTS)[number];

/** The constructs anywhere in a schema (its `$defs` included). */
export function constructsOf(schema: unknown): Set<Construct> {
  const found = new Set<Construct>();
  for (const { node, resource } of walkSchemas(schema)) {
    const types = Array.isArray(node.type) ? node.type : [node.type];
    if (node.additionalProperties === false || node.unevaluatedProperties === false) found.add("closed object");
    else if (isObject(node.properties) && (node.additionalProperties === undefined || node.additionalProperties === true))
      found.add("open object");
    if (isObject(node.additionalProperties) || isObject(node.patternProperties)) found.add("map");
    if (isObject(node.properties)) {
      const required = Array.isArray(node.required) ? node.required : [];
      for (const [name, property] of Object.entries(node.properties)) {
        if (admitsNull(property, resource)) found.add(required.includes(name) ? "required-nullable" : "optional-nullable");
      }
    }
    if (types.includes("integer")) found.add("integer");
    if (types.includes("number")) found.add("number");
    if ("const" in node || (Array.isArray(node.enum) && node.enum.length === 1)) found.add("const");
    else if (Array.isArray(node.enum) && node.enum.some((value) => typeof value === "string")) found.add("string enum");
    for (const keyword of ["anyOf", "oneOf"]) {
      const members = (Array.isArray(node[keyword]) ? node[keyword] : []).filter((member: unknown) => !isNull(member));
      if (members.length > 1) found.add(tagOf(members) === undefined ? "untagged union" : "tagged union");
    }
    if (Array.isArray(node.prefixItems) || Array.isArray(node.items)) found.add("tuple");
    if (typeof node.$ref === "string" && reaches(resource, node.$ref, node.$ref)) found.add("recursive");
  }
  return found;
}

function isNull(schema: unknown): boolean {
  return isObject(schema) && (schema.type === "null" || (schema.const === null && !("type" in schema)));
}

function admitsNull(schema: unknown, resource: Schema, seen = new Set<unknown>()): boolean {
  if (!isObject(schema)) return schema === true;
  if (seen.has(schema)) return false;
  seen.add(schema);
  if (schema.nullable === true || isNull(schema) || (Array.isArray(schema.type) && schema.type.includes("null"))) return true;
  if (Array.isArray(schema.enum) && schema.enum.includes(null)) return true;
  const members = [...((schema.anyOf as unknown[]) ?? []), ...((schema.oneOf as unknown[]) ?? [])];
  if (members.some((member) => admitsNull(member, resource, seen))) return true;
  if (typeof schema.$ref !== "string") return false;
  const target = resolveRef(resource, schema.$ref);
  return target.kind === "found" && admitsNull(target.node, resource, seen);
}

/** A property every member requires as a distinct string constant: what the emitter tags a union by. */
function tagOf(members: readonly unknown[]): string | undefined {
  const objects = members.filter(isObject);
  if (objects.length < members.length) return undefined;
  const constant = (member: Schema, name: string): unknown => {
    const property = (member.properties as Record<string, unknown> | undefined)?.[name];
    if (!isObject(property) || !(Array.isArray(member.required) && member.required.includes(name))) return undefined;
    return "const" in property ? property.const : Array.isArray(property.enum) && property.enum.length === 1 ? property.enum[0] : undefined;
  };
  const names = Object.keys((objects[0]!.properties as object | undefined) ?? {});
  return names.find((name) => {
    const values = objects.map((member) => constant(member, name));
    return values.every((value) => typeof value === "string") && new Set(values).size === values.length;
  });
}

/** Whether the schema `$ref` points at refers back to `target`, through any chain of references. */
function reaches(resource: Schema, ref: string, target: string, seen = new Set<string>()): boolean {
  if (seen.has(ref)) return false;
  seen.add(ref);
  const found = resolveRef(resource, ref);
  if (found.kind !== "found") return false;
  for (const { node } of walkSchemas(found.node)) {
    if (typeof node.$ref !== "string") continue;
    if (node.$ref === target || reaches(resource, node.$ref, target, seen)) return true;
  }
  return false;
}
