import { isSchema, mapChildren, type Schema } from "../json-schema/keywords.js";
import { isObject, joinPointer } from "../json-schema/pointer.js";
import { describesObject, isBareNull, typeIncludes } from "../json-schema/predicates.js";
import { resolveRef } from "../json-schema/refs.js";
import { mapSchemas, walkSchemas } from "../json-schema/traverse.js";

/**
 * Schema rewrites for LLM providers, each a small pure function: it returns a new
 * schema and never mutates its input. A pass that cannot keep the meaning exactly
 * says so through `note`, and moves what a reader needs into `description`.
 */

export type { Schema } from "../json-schema/keywords.js";

const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";

/** What a note is about, so that a reader can count notes by kind. */
export type NoteKind =
  | "remote-ref"
  | "dangling-ref"
  | "recursion-cut"
  | "size-cut"
  | "allof-conflict"
  | "oneof-to-anyof"
  | "enum-to-strings"
  | "tuple-to-array"
  | "empty-object"
  | "optional-to-nullable"
  | "closed-object"
  | "dropped-keyword"
  | "root-not-object";

export interface PassContext {
  /** Records a change of meaning (or a thing left as it was) at a JSON pointer. */
  note(pointer: string, message: string, kind: NoteKind): void;
}

export interface InlineOptions {
  /** A recursive reference is kept in `$defs` (`keep`) or cut after `depth` expansions of its target on one path (`cut`). */
  cycles: "keep" | "cut";
  depth: number;
  /** Subschemas the inlining may add to the input's own; beyond it, references are inlined less deeply. */
  budget?: number;
}

/**
 * Enough for every real schema whose references form a tree; mutually recursive definitions
 * (Microsoft Graph's OneNote types refer to each other by the dozen) grow exponentially with
 * the depth they are inlined to, and would otherwise exhaust memory.
 */
const INLINE_BUDGET = 5_000;
/** Limits on nested references tried in turn while the result exceeds the budget; 0 inlines none. */
const NESTING_LIMITS = [Number.POSITIVE_INFINITY, 8, 6, 4, 3, 2, 1];

/** Thrown inside `inlineRefs` only, to try the next nesting limit. */
class OverBudget extends Error {}

/**
 * Inlines local `$ref`s and drops `$defs`/`definitions`. A recursive reference is kept or cut
 * (see `InlineOptions`); so is every reference nested deeper than the largest limit that keeps
 * the result within the budget: kept, the meaning is the same; cut, it is replaced by an
 * unconstrained schema whose description says so. Remote refs are never fetched.
 */
export function inlineRefs(schema: Schema, options: InlineOptions, context: PassContext): Schema {
  const recursion = new Map<string, boolean>();
  const budget = (options.budget ?? INLINE_BUDGET) + [...walkSchemas(schema)].length;
  for (const nesting of NESTING_LIMITS) {
    const notes: Parameters<PassContext["note"]>[] = [];
    try {
      const result = inlineWithin(schema, options, { nesting, budget, recursion }, { note: (...note) => notes.push(note) });
      for (const note of notes) context.note(...note);
      return result;
    } catch (error) {
      if (!(error instanceof OverBudget)) throw error;
    }
  }
  // With no reference inlined the result is no larger than the input.
  return inlineWithin(schema, options, { nesting: 0, budget: Number.POSITIVE_INFINITY, recursion }, context);
}

interface Limits {
  /** References nested deeper than this are cut (or kept in `$defs`). */
  nesting: number;
  /** Subschemas the result may hold. */
  budget: number;
  /** Whether a target's references lead back to it, by the target's pointer: shared between attempts. */
  recursion: Map<string, boolean>;
}

function inlineWithin(schema: Schema, options: InlineOptions, limits: Limits, context: PassContext): Schema {
  const kept: Schema = {};
  /** Kept definitions' names, by their target's pointer: one target, however it is referred to, has one name. */
  const names = new Map<string, string>();
  let written = 0;
  /** Whether following local refs from the target at `start` leads back to it. */
  const recursive = (start: string, node: unknown): boolean => {
    const known = limits.recursion.get(start);
    if (known !== undefined) return known;
    const seen = new Set<string>();
    const pending = [node];
    let found = false;
    for (let next = pending.pop(); next !== undefined && !found; next = pending.pop()) {
      for (const { node: sub } of walkSchemas(next)) {
        if (typeof sub.$ref !== "string") continue;
        const target = resolveRef(schema, sub.$ref);
        if (target.kind !== "found") continue;
        if (target.pointer === start) found = true;
        if (!seen.has(target.pointer)) {
          seen.add(target.pointer);
          pending.push(target.node);
        }
      }
    }
    limits.recursion.set(start, found);
    return found;
  };
  const keptName = (pointer: string): string => {
    let name = names.get(pointer);
    if (name === undefined) {
      const base = (pointer.split("/").pop() ?? "").replace(/[^A-Za-z0-9_-]/g, "") || "Root";
      name = base;
      for (let n = 2; [...names.values()].includes(name); n++) name = `${base}${n}`;
      names.set(pointer, name);
    }
    return name;
  };
  const expand = (node: Schema, pointer: string, stack: string[]): Schema | boolean => {
    if (typeof node.$ref !== "string") return expandObject(node, pointer, stack);
    const { $ref: ref, ...siblings } = node;
    const target = resolveRef(schema, ref);
    if (target.kind === "remote") {
      context.note(pointer, `$ref ${JSON.stringify(ref)} is not local and was left as it is`, "remote-ref");
      return node;
    }
    if (target.kind !== "found" || !isSchema(target.node)) {
      context.note(
        pointer,
        `${target.kind === "malformed" ? "malformed" : "dangling"} $ref ${JSON.stringify(ref)} replaced by an unconstrained schema`,
        "dangling-ref",
      );
      return siblings;
    }
    const body = target.node;
    const expandBody = (at: string, inner: string[]) => (isObject(body) ? expand(body, at, inner) : body);
    const tooDeep = stack.length >= limits.nesting;
    if (options.cycles === "keep" && (tooDeep || recursive(target.pointer, body))) {
      // The provider understands references: the definition stays, referenced by name.
      const name = keptName(target.pointer);
      if (!Object.hasOwn(kept, name)) {
        kept[name] = {};
        kept[name] = expandBody(`/$defs/${name}`, [...stack, target.pointer]);
      }
      return { ...expandObject(siblings, pointer, stack), $ref: `#/$defs/${name}` };
    }
    if (tooDeep) {
      context.note(
        pointer,
        `$ref ${JSON.stringify(ref)} not inlined beyond ${limits.nesting} nested references, to stay within ${limits.budget} subschemas`,
        "size-cut",
      );
      return { ...siblings, description: appendText(siblings.description, "(Nested too deep; this level is not described.)") };
    }
    if (stack.filter((entry) => entry === target.pointer).length >= options.depth) {
      context.note(pointer, `recursion through ${ref} cut after ${options.depth} levels`, "recursion-cut");
      return { ...siblings, description: appendText(siblings.description, "(Recursive structure; deeper levels are not described.)") };
    }
    const inlined = expandBody(pointer, [...stack, target.pointer]);
    return isObject(inlined) ? { ...inlined, ...expandObject(siblings, pointer, stack) } : inlined;
  };
  const expandObject = (node: Schema, pointer: string, stack: string[]): Schema => {
    if (++written > limits.budget) throw new OverBudget();
    const { $defs: _defs, definitions: _definitions, ...rest } = node;
    return mapChildren(rest, ({ path, schema: child }) => (isObject(child) ? expand(child, joinPointer(pointer, path), stack) : child));
  };
  const result = expand(schema, "", []);
  // A root that is only a reference to a boolean schema, spelled as an object schema.
  if (typeof result === "boolean") return result ? {} : { not: {} };
  if (Object.keys(kept).length === 0) return result;
  // A root that is only a reference to a recursive definition takes that definition's body.
  const { $ref: rootRef, ...rest } = result;
  const rootName = typeof rootRef === "string" ? rootRef.replace("#/$defs/", "") : undefined;
  if (rootName !== undefined && isObject(kept[rootName])) return { ...(kept[rootName] as Schema), ...rest, $defs: kept };
  return { ...result, $defs: kept };
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
      if (!Array.isArray(members) || !members.some(isBareNull)) continue;
      const rest = members.filter((member) => !isBareNull(member));
      if (rest.length !== 1 || !isObject(rest[0])) continue;
      const { [keyword]: _dropped, ...outer } = node;
      return makeNullable({ ...rest[0], ...outer }, style);
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
  if (style === "nullable") return { ...node, nullable: true };
  if (typeof node.type === "string") return { ...node, type: [node.type, "null"] };
  if (Array.isArray(node.type)) return node.type.includes("null") ? node : { ...node, type: [...node.type, "null"] };
  if (Array.isArray(node.enum)) return node.enum.includes(null) ? node : { ...node, enum: [...node.enum, null] };
  return { anyOf: [node, { type: "null" }] };
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
  return mapSchemas(schema, (node, pointer) => {
    if (!Array.isArray(node.allOf) || !node.allOf.every(isObject)) return node;
    const { allOf, ...outer } = node;
    const merged: Schema = { ...outer };
    for (const member of allOf as Schema[]) {
      for (const [key, value] of Object.entries(member)) {
        if (key === "properties" && isObject(value))
          merged.properties = { ...(isObject(merged.properties) ? merged.properties : {}), ...value };
        else if (key === "required" && Array.isArray(value))
          merged.required = [...new Set([...(Array.isArray(merged.required) ? merged.required : []), ...value])];
        else if (key in merged && JSON.stringify(merged[key]) !== JSON.stringify(value)) {
          context.note(`${pointer}/allOf`, `allOf members disagree on "${key}"; kept the first`, "allof-conflict");
        } else merged[key] = value;
      }
    }
    return merged;
  });
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
    context.note(pointer, "enum values became strings; the caller must convert them back", "enum-to-strings");
    return { ...node, type: "string", enum: node.enum.map((value) => (typeof value === "string" ? value : JSON.stringify(value))) };
  });
}

/** Tuples (`prefixItems`, draft-07 `items: [...]`) as arrays of the union of their item schemas, with the length kept. */
export function tuplesToArrays(schema: Schema, context: PassContext): Schema {
  return mapSchemas(schema, (node, pointer) => {
    const prefix = Array.isArray(node.prefixItems) ? node.prefixItems : Array.isArray(node.items) ? node.items : undefined;
    if (prefix === undefined) return node;
    const { prefixItems: _prefix, additionalItems: _additional, ...rest } = node;
    const unique = prefix.filter((item, index) => prefix.findIndex((other) => JSON.stringify(other) === JSON.stringify(item)) === index);
    context.note(pointer, "tuple became an array: positions are described in the description only", "tuple-to-array");
    const positions = prefix.map((item, index) => `${index}: ${describeBriefly(item)}`).join("; ");
    return {
      ...rest,
      items: unique.length === 1 ? unique[0] : { anyOf: unique },
      minItems: typeof node.minItems === "number" ? node.minItems : prefix.length,
      maxItems: typeof node.maxItems === "number" ? node.maxItems : prefix.length,
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
  return rewritten && typeof out.$schema === "string" && /draft-0[4-7]/.test(out.$schema) ? { ...out, $schema: DRAFT_2020_12 } : out;
}

/**
 * Nodes with `properties` or `required` but no `type` get `type: "object"`: that is what they
 * describe, and Gemini rejects `properties` elsewhere ("only allowed for OBJECT type").
 */
export function objectTypes(schema: Schema): Schema {
  return mapSchemas(schema, (node) => (node.type === undefined && describesObject(node) ? { ...node, type: "object" } : node));
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
  return mapSchemas(schema, (node) => (describesObject(node) && !isObject(node.properties) ? { ...node, properties: {} } : node));
}

/** Arrays without `items` get an unconstrained `items`. */
export function arrayItems(schema: Schema): Schema {
  return mapSchemas(schema, (node) =>
    typeIncludes(node, "array") && node.items === undefined && node.prefixItems === undefined ? { ...node, items: {} } : node,
  );
}

/**
 * OpenAI and Anthropic strict modes: every object closed (`additionalProperties: false`)
 * and every property required, the optional ones made nullable (null meaning "absent").
 */
export function strictObjects(schema: Schema, context: PassContext): Schema {
  return mapSchemas(schema, (node, pointer) => {
    if (!describesObject(node)) return node;
    const properties = isObject(node.properties) ? node.properties : {};
    const required = new Set(Array.isArray(node.required) ? node.required : []);
    const optional = Object.keys(properties).filter((name) => !required.has(name));
    if (optional.length > 0)
      context.note(pointer, `optional properties ${optional.join(", ")} became required and nullable (send null to omit)`, "optional-to-nullable");
    if (node.additionalProperties !== undefined && node.additionalProperties !== false)
      context.note(pointer, "additionalProperties became false", "closed-object");
    return {
      ...node,
      properties: Object.fromEntries(
        Object.entries(properties).map(([name, sub]) => [
          name,
          required.has(name) || !isObject(sub) ? sub : makeNullable(sub, "type-array"),
        ]),
      ),
      required: Object.keys(properties),
      additionalProperties: false,
    };
  });
}

/** Keywords that constrain instances and whose meaning a model can still read from the description. */
const DESCRIBED = new Set([
  "$ref",
  "additionalProperties",
  "format",
  "pattern",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "uniqueItems",
  "contains",
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "patternProperties",
  "propertyNames",
  "unevaluatedItems",
  "unevaluatedProperties",
  "contentSchema",
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
    const out: Schema = {};
    const kept: string[] = [];
    for (const [key, value] of Object.entries(node)) {
      const unsupportedFormat = key === "format" && allowedFormats !== undefined && !allowedFormats.has(String(value));
      if (!unsupported(key, value) && !unsupportedFormat) {
        out[key] = value;
        continue;
      }
      if (key === "examples" && Array.isArray(value)) kept.push(`Examples: ${value.map((example) => JSON.stringify(example)).join(", ")}`);
      // `additionalProperties: true` is the default; dropping it changes nothing.
      else if (DESCRIBED.has(key) && !(key === "additionalProperties" && value === true)) {
        kept.push(`${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`);
        context.note(`${pointer}/${key}`, `${key} is not supported here and was dropped; the description states it`, "dropped-keyword");
      }
    }
    return kept.length === 0 ? out : { ...out, description: appendText(out.description, kept.join("; ")) };
  });
}

/**
 * A root the provider accepts: an object, given an empty `properties` when it has none unless
 * `properties` is "leave" (Gemini rejects an empty one). A non-object root is left, with a note.
 */
export function objectRoot(schema: Schema, context: PassContext, properties: "add" | "leave" = "add"): Schema {
  if (!describesObject(schema)) {
    context.note("", "the root is not an object; this provider requires one", "root-not-object");
    return schema;
  }
  return isObject(schema.properties) || properties === "leave"
    ? { ...schema, type: "object" }
    : { ...schema, type: "object", properties: {} };
}

function describeBriefly(schema: unknown): string {
  if (!isObject(schema)) return "any";
  if (typeof schema.description === "string") return schema.description;
  return typeof schema.type === "string" ? schema.type : Array.isArray(schema.type) ? schema.type.join("|") : "any";
}

function appendText(existing: unknown, text: string): string {
  return typeof existing === "string" && existing !== "" ? `${existing} ${text}` : text;
}
