/**
 * Schema rewrites for LLM providers, each a small pure function: it returns a new
 * schema and never mutates its input. A pass that cannot keep the meaning exactly
 * says so through `note`, and moves what a reader needs into `description`.
 */

import { ANNOTATIONS, appendText } from "../json-schema/annotations.js";
import { DRAFT_2020_12, isDraft07OrOlder } from "../json-schema/dialect.js";
import type { InlineNoteKind } from "../json-schema/inline-refs.js";
import { BOUND_KEYWORDS, CONDITIONAL_KEYWORDS, type Schema, TYPE_KEYWORDS } from "../json-schema/keywords.js";
import { isObject } from "../json-schema/pointer.js";
import { describesObject, isNullTyped, typeIncludes } from "../json-schema/predicates.js";
import { isSingleResource, resolveRef } from "../json-schema/refs.js";
import { mapSchemas, walkSchemas } from "../json-schema/traverse.js";
import { markEnumStrings, markMadeRequired, WRAPPED_ROOT } from "./encoding.js";
import { asJsonText, isRecord } from "./json-text.js";

export type { Schema } from "../json-schema/keywords.js";

/** What a note is about, so that a reader can count notes by kind. */
export type NoteKind =
  | InlineNoteKind
  | "allof-conflict"
  | "oneof-to-anyof"
  | "enum-to-strings"
  | "tuple-to-array"
  | "empty-object"
  | "optional-to-nullable"
  | "closed-object"
  | "dropped-keyword"
  | "root-wrapped"
  | "root-union-merged"
  | "json-text"
  | "renamed"
  | "non-strict";

export interface PassContext {
  /** Records a change of meaning (or a thing left as it was) at a JSON pointer. */
  note(pointer: string, message: string, kind: NoteKind): void;
  /** Set by `wrapRoot`: the property the original root now sits in. */
  wrapped?: string;
}

/**
 * In a schema that is one resource, `$dynamicRef` means what `$ref` means. No provider knows the
 * dynamic keywords, and the passes after this one (inlining, cutting cycles) know `$ref`; so every
 * reference to a `$dynamicAnchor` becomes a `$ref` by JSON pointer and the anchors go (inlining
 * copies subschemas, and a copied anchor would name two places).
 */
export function dynamicRefsAsRefs(schema: Schema): Schema {
  // Almost no schema has a dynamic anchor: that walk comes first and usually ends it.
  if (![...walkSchemas(schema)].some(({ node }) => "$dynamicAnchor" in node) || !isSingleResource(schema)) return schema;
  const byPointer = (ref: unknown): string | undefined => {
    if (typeof ref !== "string" || ref.startsWith("#/") || ref === "#") return undefined;
    const target = resolveRef(schema, ref);
    return target.kind === "found" && isObject(target.node) && "$dynamicAnchor" in target.node ? `#${target.pointer}` : undefined;
  };
  return mapSchemas(schema, (node) => {
    const { $dynamicRef, $dynamicAnchor: _anchor, ...rest } = node;
    const dynamic = byPointer($dynamicRef);
    const plain = byPointer(node.$ref);
    if (dynamic !== undefined && !("$ref" in node)) return { ...rest, $ref: dynamic };
    return { ...rest, ...(plain === undefined ? {} : { $ref: plain }), ...($dynamicRef === undefined ? {} : { $dynamicRef }) };
  });
}

/**
 * `anyOf`/`oneOf` with `{type: "null"}`, and type arrays with "null", rewritten as the
 * provider wants a nullable: OpenAPI's `nullable: true` or a type array. The outer
 * `default` and `description` stay.
 */
export function nullUnions(schema: Schema, style: "nullable" | "type-array"): Schema {
  return mapSchemas(schema, (node) => {
    for (const keyword of ["anyOf", "oneOf"] as const) {
      const members = node[keyword];
      // A null-typed member admits only null, whatever else it says.
      if (!Array.isArray(members) || !members.some(isNullTyped)) continue;
      const rest = members.filter((member) => !isNullTyped(member));
      const { [keyword]: _dropped, ...outer } = node;
      // Only null: no union at all.
      if (rest.length === 0) return { ...outer, type: "null" };
      if (rest.length === 1 && isObject(rest[0])) return makeNullable({ ...rest[0], ...outer }, style);
      // OpenAPI has no null member: each other member admits null instead (anyOf, as null now matches several).
      if (style === "nullable" && rest.length > 1 && rest.every(isObject))
        return { ...outer, anyOf: rest.map((member) => makeNullable(member, style)) };
    }
    if (style === "nullable" && Array.isArray(node.type) && node.type.includes("null")) {
      const types = node.type.filter((type) => type !== "null");
      if (types.length === 1) return { ...node, type: types[0], nullable: true };
    }
    if (style === "type-array" && node.nullable === true) {
      const { nullable: _flag, ...rest } = node;
      return makeNullable(rest, style);
    }
    return node;
  });
}

function makeNullable(node: Schema, style: "nullable" | "type-array"): Schema {
  if (style === "nullable") {
    if (node.type !== undefined) return { ...node, nullable: true };
    // OpenAPI ignores `nullable` without a type: a union admits null through its members.
    if (Array.isArray(node.anyOf))
      return { ...node, anyOf: node.anyOf.map((member) => (isObject(member) ? makeNullable(member, style) : member)) };
    const type = describesObject(node)
      ? "object"
      : Array.isArray(node.enum) && node.enum.every((value) => typeof value === "string")
        ? "string"
        : undefined;
    // Otherwise nothing in the node rejects null already.
    return type === undefined ? node : { ...node, type, nullable: true };
  }
  // A `const` or an enum beside the type would still reject null.
  const values = "const" in node ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  const { const: _const, ...rest } = node;
  const withNull = values === undefined ? node : { ...rest, enum: values.includes(null) ? values : [...values, null] };
  if (typeof node.type === "string") return node.type === "null" ? withNull : { ...withNull, type: [node.type, "null"] };
  if (Array.isArray(node.type)) return node.type.includes("null") ? withNull : { ...withNull, type: [...node.type, "null"] };
  if (values !== undefined) return withNull;
  return { anyOf: [node, { type: "null" }] };
}

/**
 * Type arrays (which OpenAPI's one-string `type` cannot hold) as an `anyOf` with one member per
 * type, each keeping only the keywords that constrain its type: the same instances. Null becomes
 * `nullable` on every member; the annotations stay outside.
 */
export function typeArraysToAnyOf(schema: Schema): Schema {
  return mapSchemas(schema, (node) => {
    if (!Array.isArray(node.type)) return node;
    const types = node.type.filter((type): type is string => typeof type === "string" && type !== "null");
    if (types.length === 0) return node;
    const { type: _types, nullable: _nullable, ...rest } = node;
    const nullable = types.length < node.type.length || node.nullable === true ? { nullable: true } : {};
    if (types.length === 1) return { ...rest, type: types[0], ...nullable };
    const member = (type: string) => ({
      ...Object.fromEntries(
        Object.entries(rest).filter(
          ([key]) => !ANNOTATIONS.has(key) && (TYPE_KEYWORDS.get(key) ?? type) === (type === "integer" ? "number" : type),
        ),
      ),
      type,
      ...nullable,
    });
    return { ...Object.fromEntries(Object.entries(rest).filter(([key]) => ANNOTATIONS.has(key))), anyOf: types.map(member) };
  });
}

/** `oneOf` → `anyOf`: the same instances when the members do not overlap (the usual tagged union). */
export function oneOfToAnyOf(schema: Schema, context: PassContext): Schema {
  return mapSchemas(schema, (node, pointer) => {
    if (!Array.isArray(node.oneOf)) return node;
    const { oneOf, ...rest } = node;
    context.note(pointer, "oneOf became anyOf (an instance matching several members is now also valid)", "oneof-to-anyof");
    return { ...rest, anyOf: oneOf };
  });
}

/** `allOf` of objects merged into one object: properties, `required`, and the outer keywords. */
export function mergeAllOf(schema: Schema, context: PassContext): Schema {
  return mapSchemas(schema, (node, pointer) => mergedAllOf(node, pointer, context));
}

function mergedAllOf(node: Schema, pointer: string, context: PassContext): Schema {
  if (!Array.isArray(node.allOf) || !node.allOf.every(isObject)) return node;
  const { allOf, ...outer } = node;
  // A Map, so that a "__proto__" keyword is a key like any other.
  const merged = new Map(Object.entries(outer));
  for (const member of allOf as Schema[]) {
    for (const [key, value] of Object.entries(member)) {
      const known = merged.get(key);
      if (key === "properties" && isObject(value)) merged.set(key, { ...(isObject(known) ? known : {}), ...value });
      else if (key === "required" && Array.isArray(value))
        merged.set(key, [...new Set([...(Array.isArray(known) ? known : []), ...value])]);
      else if (merged.has(key) && JSON.stringify(known) !== JSON.stringify(value)) {
        context.note(`${pointer}/allOf`, `allOf members disagree on "${key}"; kept the first`, "allof-conflict");
      } else merged.set(key, value);
    }
  }
  return Object.fromEntries(merged);
}

/** `const: x` → `enum: [x]`. */
export function constToEnum(schema: Schema): Schema {
  return mapSchemas(schema, (node) => {
    if (!("const" in node)) return node;
    const { const: value, ...rest } = node;
    return { ...rest, enum: [value] };
  });
}

/** Non-string enum values as strings (Gemini's OpenAPI subset): the type becomes string. */
export function enumsToStrings(schema: Schema, context: PassContext): Schema {
  return mapSchemas(schema, (node, pointer) => {
    if (!Array.isArray(node.enum) || node.enum.every((value) => typeof value === "string")) return node;
    const strings = node.enum.map((value) => (typeof value === "string" ? value : JSON.stringify(value)));
    // 1 and "1" would both be "1": the model's answer could not say which it meant.
    if (new Set(strings).size < strings.length) {
      context.note(pointer, "enum values that read the same as strings: the model sends the value as JSON text", "json-text");
      return asJsonText(node, "nullable");
    }
    context.note(pointer, "enum values became strings; the caller must convert them back", "enum-to-strings");
    return markEnumStrings({ ...node, type: "string", enum: strings });
  });
}

/**
 * Tuples (`prefixItems`, draft-07 `items: [...]`) as arrays of the union of their item schemas
 * (unconstrained when the tuple is open), at most as long as a closed tuple. A tuple does not
 * require its positions, so neither does the array.
 */
export function tuplesToArrays(schema: Schema, context: PassContext): Schema {
  return mapSchemas(schema, (node, pointer) => {
    const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined;
    if (prefix === undefined) return node;
    const { prefixItems: _prefix, additionalItems: _additional, ...rest } = node;
    // What the elements after the tuple's positions must match, in either spelling.
    const tail = Array.isArray(node.prefixItems) ? node.items : node.additionalItems;
    const open = tail === undefined || tail === true || (isObject(tail) && Object.keys(tail).length === 0);
    const members = open || tail === false ? prefix : [...prefix, tail];
    const unique = members.filter((item, index) => members.findIndex((other) => JSON.stringify(other) === JSON.stringify(item)) === index);
    context.note(pointer, "tuple became an array: positions are described in the description only", "tuple-to-array");
    const positions = prefix.map((item, index) => `${index}: ${describeBriefly(item)}`).join("; ");
    const maxItems = typeof node.maxItems === "number" ? node.maxItems : tail === false ? prefix.length : undefined;
    return {
      ...rest,
      items: open ? {} : unique.length === 1 ? unique[0] : { anyOf: unique },
      ...(maxItems === undefined ? {} : { maxItems }),
      description: appendText(node.description, `Positions: ${positions}.`),
    };
  });
}

/**
 * Draft-07 tuples (`items: [...]`, `additionalItems`) in their 2020-12 spelling (`prefixItems`,
 * `items`): the same instances, for a provider that reads schemas as draft 2020-12 and rejects
 * the array form of `items`.
 */
export function draft07Tuples(schema: Schema): Schema {
  let rewritten = false;
  const out = mapSchemas(schema, (node) => {
    // A node that already has prefixItems mixes both drafts; which reading was meant is unknown.
    if (!Array.isArray(node.items) || node.prefixItems !== undefined) return node;
    rewritten = true;
    const { items, additionalItems, ...rest } = node;
    return additionalItems === undefined ? { ...rest, prefixItems: items } : { ...rest, prefixItems: items, items: additionalItems };
  });
  // Left as draft-07, the result would declare a dialect in which prefixItems means nothing.
  return rewritten && isDraft07OrOlder(out) ? { ...out, $schema: DRAFT_2020_12 } : out;
}

/**
 * Nodes with `properties` or `required` but no `type` get `type: "object"`: that is what they
 * describe, and Gemini rejects `properties` elsewhere ("only allowed for OBJECT type").
 */
export function objectTypes(schema: Schema): Schema {
  return mapSchemas(schema, (node) => {
    if (node.type !== undefined || !describesObject(node)) return node;
    // A node with only `required` names its properties, unconstrained: an empty object would have no portable form.
    const names = Array.isArray(node.required) ? node.required.filter((name): name is string => typeof name === "string") : [];
    const named =
      isObject(node.properties) || names.length === 0 ? {} : { properties: Object.fromEntries(names.map((name) => [name, {}])) };
    return { ...node, type: "object", ...named };
  });
}

/**
 * Removes an empty `properties`, which Gemini rejects ("should be non-empty for OBJECT type"),
 * and notes every object left without properties: whether Gemini accepts one is unconfirmed,
 * and a tool without parameters is better declared with no `parameters` at all.
 */
export function emptyPropertiesRemoved(schema: Schema, context: PassContext): Schema {
  return mapSchemas(schema, (node, pointer) => {
    if (!describesObject(node) || (isObject(node.properties) && Object.keys(node.properties).length > 0)) return node;
    context.note(
      pointer,
      pointer === ""
        ? 'no parameters: Gemini rejects an empty "properties"; declare the tool without "parameters"'
        : 'an object without properties: Gemini rejects an empty "properties" and may reject a missing one',
      "empty-object",
    );
    const { properties: _empty, ...rest } = node;
    return rest;
  });
}

/** Objects without `properties` get an empty one (the same instances: it constrains nothing). */
export function objectProperties(schema: Schema): Schema {
  return mapSchemas(schema, (node) => (admitsObjects(node) && !isObject(node.properties) ? { ...node, properties: {} } : node));
}

/**
 * Whether a provider reads `node` as an object schema: typed so (a type array naming "object" too:
 * `["object", "null"]`, which a nullable object becomes), or untyped with `properties`. An untyped
 * node with only `required` is a constraint on its parent's object (the `anyOf: [{required: [a]},
 * {required: [b]}]` idiom), not an object of its own to close.
 */
function admitsObjects(node: Schema): boolean {
  return typeIncludes(node, "object") || (node.type === undefined && isObject(node.properties));
}

/** Arrays without `items` get an unconstrained `items`. */
export function arrayItems(schema: Schema): Schema {
  return mapSchemas(schema, (node) =>
    typeIncludes(node, "array") && node.items === undefined && node.prefixItems === undefined ? { ...node, items: {} } : node,
  );
}

/**
 * OpenAI and Anthropic strict modes: every object closed (`additionalProperties: false`). With
 * `requireAll` (OpenAI's rule), every property required too, the optional ones made nullable
 * (null meaning "absent"); Anthropic keeps optional properties, within its budget of them.
 */
export function strictObjects(schema: Schema, context: PassContext, requireAll = true): Schema {
  return mapSchemas(schema, (node, pointer) => {
    if (!admitsObjects(node) || IN_PLACE.test(pointer)) return node;
    if (node.additionalProperties !== undefined && node.additionalProperties !== false)
      context.note(pointer, "additionalProperties became false", "closed-object");
    if (!requireAll) return { ...node, additionalProperties: false };
    const properties = isObject(node.properties) ? node.properties : {};
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const optional = Object.keys(properties).filter((name) => !required.has(name));
    if (optional.length > 0)
      context.note(
        pointer,
        `optional properties ${optional.join(", ")} became required and nullable (send null to omit)`,
        "optional-to-nullable",
      );
    // With every property required and no other allowed, the count of properties is fixed: a bound on it could only contradict.
    const { minProperties: _min, maxProperties: _max, ...rest } = node;
    const bounds = (["minProperties", "maxProperties"] as const).filter((key) => node[key] !== undefined);
    for (const key of bounds) context.note(`${pointer}/${key}`, `${key} cannot hold on a closed object and was dropped`, "dropped-keyword");
    const described =
      bounds.length === 0 ? {} : { description: appendText(node.description, bounds.map((key) => `${key}: ${node[key]}`).join("; ")) };
    const closed = {
      ...rest,
      ...described,
      properties: Object.fromEntries(
        Object.entries(properties).map(([name, sub]) => [
          name,
          required.has(name) || !isObject(sub) ? sub : makeNullable(sub, "type-array"),
        ]),
      ),
      required: Object.keys(properties),
      additionalProperties: false,
    };
    return optional.length === 0 ? closed : markMadeRequired(closed, optional);
  });
}

/**
 * Subschemas that constrain their parent's own instance under a condition (`dependentSchemas`,
 * `if`/`then`/`else`, `not`): the instance has its parent's keys, so closing one to its own
 * `properties` would reject valid instances.
 */
const IN_PLACE = /\/(?:(?:dependentSchemas|dependencies)\/[^/]+|if|then|else|not)$/;

/** Keywords that constrain instances and whose meaning a model can still read from the description. */
const DESCRIBED: ReadonlySet<string> = new Set([
  "$ref",
  "additionalProperties",
  "format",
  "pattern",
  ...BOUND_KEYWORDS,
  ...CONDITIONAL_KEYWORDS,
]);

/**
 * Removes keywords a provider rejects (`unsupported`) and formats it does not know. What a
 * person needs from a dropped constraint (a format, a bound, a subschema, examples) moves into
 * `description` rather than being lost, and each dropped constraint is noted: the schema is looser.
 */
export function dropKeywords(
  schema: Schema,
  unsupported: (keyword: string, value: unknown) => boolean,
  allowedFormats: ReadonlySet<string> | undefined,
  context: PassContext,
): Schema {
  return mapSchemas(schema, (node, pointer) => {
    const entries: [string, unknown][] = [];
    const kept: string[] = [];
    for (const [key, value] of Object.entries(node)) {
      const unsupportedFormat = key === "format" && allowedFormats !== undefined && !allowedFormats.has(String(value));
      if (!unsupported(key, value) && !unsupportedFormat) {
        entries.push([key, value]);
        continue;
      }
      if (key === "examples" && Array.isArray(value)) kept.push(`Examples: ${value.map((example) => JSON.stringify(example)).join(", ")}`);
      // What omitting the value means: with optional properties sent as null, the model needs to know.
      else if (key === "default" && value !== null) kept.push(`Default: ${JSON.stringify(value)}`);
      // `additionalProperties: true` is the default; dropping it changes nothing.
      else if (DESCRIBED.has(key) && !(key === "additionalProperties" && value === true)) {
        kept.push(`${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
        context.note(`${pointer}/${key}`, `${key} is not supported here and was dropped; the description states it`, "dropped-keyword");
      }
    }
    const out: Schema = Object.fromEntries(entries);
    return kept.length === 0 ? out : { ...out, description: appendText(out.description, kept.join("; ")) };
  });
}

/**
 * A root the provider accepts: an object, given an empty `properties` when it has none unless
 * `properties` is "leave" (Gemini rejects an empty one). An unconstrained root, or one whose type
 * array names "object", becomes an object: MCP arguments and structured results always are one.
 */
export function objectRoot(schema: Schema, properties: "add" | "leave" = "add"): Schema {
  const { nullable: _null, ...rest } = schema;
  return isObject(schema.properties) || properties === "leave" ? { ...rest, type: "object" } : { ...rest, type: "object", properties: {} };
}

/** Keywords that belong to the whole schema document, which stay at the root when it is wrapped. */
const DOCUMENT_KEYWORDS: ReadonlySet<string> = new Set(["$schema", "$id", "$defs", "definitions"]);

/**
 * A root that admits no object (a string, an array, a union of those) inside an object: every
 * provider wants object parameters. The model sends `{"value": …}`; `restoreArguments` unwraps it.
 * After `rootUnion`, which makes a union of objects one object.
 */
export function wrapRoot(schema: Schema, context: PassContext): Schema {
  const unconstrained = ["type", "anyOf", "oneOf", "allOf", "enum", "const", "not"].every((key) => !(key in schema));
  return unconstrained || admitsObjects(schema) ? schema : wrapped(schema, context, "is not an object");
}

/**
 * A root that is a record, wrapped the same way: strict modes would close it to `{}`, and Gemini
 * cannot declare an object without properties. Before the passes that drop the keywords it is
 * recognized by (`patternProperties`, `propertyNames`).
 */
export function wrapRecordRoot(schema: Schema, context: PassContext): Schema {
  return isRecord(schema) ? wrapped(schema, context, "is a record") : schema;
}

function wrapped(schema: Schema, context: PassContext, why: string): Schema {
  const document = Object.fromEntries(Object.entries(schema).filter(([key]) => DOCUMENT_KEYWORDS.has(key)));
  const inner = Object.fromEntries(Object.entries(schema).filter(([key]) => !DOCUMENT_KEYWORDS.has(key)));
  context.note("", `the root ${why}: its value is sent as the property "${WRAPPED_ROOT}"`, "root-wrapped");
  context.wrapped = WRAPPED_ROOT;
  return { ...document, type: "object", properties: { [WRAPPED_ROOT]: inner }, required: [WRAPPED_ROOT] };
}

/** The JSON types of `values`, "integer" for whole numbers. */
function typesOf(values: readonly unknown[]): string[] {
  const type = (value: unknown) =>
    value === null
      ? "null"
      : Array.isArray(value)
        ? "array"
        : typeof value === "number"
          ? Number.isInteger(value)
            ? "integer"
            : "number"
          : typeof value;
  const types = new Set(values.map(type));
  // An integer is a number: one type covers both.
  if (types.has("number")) types.delete("integer");
  return [...types];
}

/** Enums and consts without a `type` get the type of their values: Gemini and OpenAI strict want one on every node. */
export function valueTypes(schema: Schema, style: "nullable" | "type-array"): Schema {
  return mapSchemas(schema, (node) => {
    if (node.type !== undefined || !(Array.isArray(node.enum) || "const" in node)) return node;
    const types = typesOf(Array.isArray(node.enum) ? node.enum : [node.const]);
    const named = style === "nullable" ? types.filter((type) => type !== "null") : types;
    if (named.length === 0) return node;
    const nullable = style === "nullable" && named.length < types.length ? { nullable: true } : {};
    return { ...node, type: named.length === 1 ? named[0] : named, ...nullable };
  });
}

/**
 * A `type` beside an `anyOf` whose members each have their own type, and no properties of its own,
 * says nothing the members do not: it goes, with an empty `properties` and an `additionalProperties`
 * that admits anything. Left, a strict mode would
 * close the outer object to `{}` and every member with it, and Gemini would want it to have properties.
 */
export function unionTypes(schema: Schema): Schema {
  return mapSchemas(schema, (node) => {
    const members = node.anyOf;
    if (node.type === undefined || !Array.isArray(members) || members.length === 0) return node;
    if (!members.every((member) => isObject(member) && member.type !== undefined)) return node;
    if (isObject(node.properties) && Object.keys(node.properties).length > 0) return node;
    // An `additionalProperties` that admits anything says nothing either; any other would constrain the members' keys.
    const extra = node.additionalProperties;
    if (extra !== undefined && extra !== true && !(isObject(extra) && Object.keys(extra).length === 0)) return node;
    const { type: _type, properties: _empty, additionalProperties: _extra, ...rest } = node;
    return rest;
  });
}

/** A union member that only requires names of its parent's object (`{required: [a]}`, `{properties: {a: true}, required: [a]}`). */
function constrainsNamesOnly(member: unknown): boolean {
  if (!isObject(member) || member.type !== undefined || !Array.isArray(member.required)) return false;
  const trivial = (sub: unknown) => sub === true || (isObject(sub) && Object.keys(sub).length === 0);
  return Object.entries(member).every(
    ([key, value]) =>
      key === "required" || ANNOTATIONS.has(key) || (key === "properties" && isObject(value) && Object.values(value).every(trivial)),
  );
}

/**
 * Below the root, an object's `anyOf`/`oneOf` of members that only require some of its names
 * ("at least one of a, b") is dropped and stated in the description: no provider's strict
 * or OpenAPI form holds it, and read as objects of their own the members would be closed or typed
 * wrongly. Looser, never stricter. (`rootUnion` merges the same idiom at the root.)
 */
export function nameConstraints(schema: Schema, context: PassContext): Schema {
  return mapSchemas(schema, (node, pointer) => {
    if (pointer === "" || !admitsObjects(node)) return node;
    const keyword = (["anyOf", "oneOf"] as const).find(
      (key) => Array.isArray(node[key]) && (node[key] as unknown[]).every(constrainsNamesOnly),
    );
    if (keyword === undefined) return node;
    const { [keyword]: members, ...rest } = node;
    const shapes = (members as Schema[]).map((member) => `{${(member.required as unknown[]).map(String).join(", ")}}`).join(" | ");
    context.note(`${pointer}/${keyword}`, `${keyword} of required names was dropped; the description states it`, "dropped-keyword");
    return {
      ...rest,
      description: appendText(node.description, `Requires ${keyword === "oneOf" ? "exactly" : "at least"} one of: ${shapes}.`),
    };
  });
}

/**
 * A root `anyOf`/`oneOf` of objects (or `allOf`), which most providers reject at the root, as one
 * object: every member's properties, each the union of the members' schemas for it (unconstrained
 * where an open member does not name it), required where every member requires it, and open.
 * Looser, never stricter; the description lists the members.
 */
export function rootUnion(given: Schema, context: PassContext): Schema {
  const schema = mergedAllOf(given, "", context);
  const keyword = (["anyOf", "oneOf"] as const).find((key) => Array.isArray(schema[key]));
  if (keyword === undefined) return schema;
  const members = schema[keyword] as unknown[];
  // Untyped members that only require names are constraints on the root's own properties.
  const merges = (member: unknown): member is Schema =>
    isObject(member) && (admitsObjects(member) || Object.keys(member).every((key) => ["required", ...ANNOTATIONS].includes(key)));
  if (members.length === 0 || !members.every(merges)) return schema;
  const { [keyword]: _members, ...outer } = schema;
  const names = [...new Set(members.flatMap((member) => (isObject(member.properties) ? Object.keys(member.properties) : [])))];
  const open = members.filter((member) => member.additionalProperties !== false);
  const properties = Object.fromEntries(
    names.map((name) => {
      const declared = members.flatMap((member) =>
        isObject(member.properties) && Object.hasOwn(member.properties, name) ? [member.properties[name]] : [],
      );
      const unique = declared.filter(
        (item, index) => declared.findIndex((other) => JSON.stringify(other) === JSON.stringify(item)) === index,
      );
      const undeclaredOpen = open.some((member) => !isObject(member.properties) || !Object.hasOwn(member.properties, name));
      return [name, undeclaredOpen ? {} : unique.length === 1 ? unique[0] : { anyOf: unique }];
    }),
  );
  const requiredBy = (member: Schema) => new Set(Array.isArray(member.required) ? member.required : []);
  const required = [...requiredBy(members[0] as Schema)].filter((name) => members.every((member) => requiredBy(member).has(name)));
  const all = [...new Set([...required, ...(Array.isArray(outer.required) ? outer.required : [])])];
  context.note("", `the root's ${keyword} of ${members.length} objects became one object accepting any of them`, "root-union-merged");
  const shapes = members
    .map((member) => {
      const named = [...(isObject(member.properties) ? Object.keys(member.properties) : []), ...[...requiredBy(member)].map(String)];
      return `{${[...new Set(named)].join(", ")}}`;
    })
    .join(" | ");
  return {
    ...outer,
    type: "object",
    properties: { ...properties, ...(isObject(outer.properties) ? outer.properties : {}) },
    ...(all.length > 0 ? { required: all } : {}),
    description: appendText(outer.description, `One of: ${shapes}.`),
  };
}

function describeBriefly(schema: unknown): string {
  if (!isObject(schema)) return "any";
  if (typeof schema.description === "string") return schema.description;
  return typeof schema.type === "string" ? schema.type : Array.isArray(schema.type) ? schema.type.join("|") : "any";
}
