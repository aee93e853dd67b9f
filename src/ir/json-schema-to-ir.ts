/**
 * JSON Schema (draft-07, 2019-09, 2020-12, with OpenAPI's `nullable`) to the IR.
 * Local `$ref`s become named definitions, hoisted once per module (recursion is a
 * reference to a name). Keywords checked only at run time become `check` nodes beside
 * the typed part. Unknown keywords are ignored, as Ajv does when not strict; whatever the
 * IR cannot express exactly is left out (wider, never narrower), with a warning naming the
 * JSON pointer.
 */

import { jsonEquals } from "@pmcp-codegen/runtime/internal/json";
import { pattern as linearPattern } from "@pmcp-codegen/runtime/internal/patterns";
import { jsonText } from "../bundle/serialize.js";
import { isDraft07OrOlder } from "../json-schema/dialect.js";
import { TYPE_KEYWORDS } from "../json-schema/keywords.js";
import { escapePointer, isObject, unescapePointer } from "../json-schema/pointer.js";
import { valueDeeperThan } from "../json-schema/predicates.js";
import { isSingleResource, resolveRef } from "../json-schema/refs.js";
import { walkSchemas } from "../json-schema/traverse.js";
import { intersect } from "./algebra.js";
import { checksOf, patternProblem } from "./checks.js";
import type { IRNode, JsonValue, NamedDefinition, NumberNode, ObjectNode, PatternNode, PropertyNode, StringNode } from "./ir.js";
import { type NameScope, pascalCase } from "./naming.js";

/** A part of a schema the IR could not take as written, named by tool and JSON pointer, with what was done instead. */
export interface IRWarning {
  tool: string;
  pointer: string;
  message: string;
}

/**
 * Keywords of one instance type that the IR checks with a runtime helper passing every other type
 * itself (`contains`, `propertyNames`, `dependent*`, `unevaluated*`): a schema with no `type` needs
 * no member per type for them.
 */
const CHECKED_ON_ANY_TYPE = new Set([
  "contains",
  "propertyNames",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "unevaluatedItems",
  "unevaluatedProperties",
]);

/** The keywords a schema with no `type` is split by, one member per type: those zod writes per type, and `format`, which it checks on strings. */
const TYPED_KEYS = [...[...TYPE_KEYWORDS.keys()].filter((key) => !CHECKED_ON_ANY_TYPE.has(key)), "format"];

const JSON_TYPES = ["string", "number", "integer", "boolean", "null", "array", "object"] as const;
type JsonType = (typeof JSON_TYPES)[number];

/** Deeper than this is treated as hostile: the sub-part becomes `unknown`. */
const MAX_DEPTH = 64;

/** IR kinds whose generated code nests others; a leaf never needs a name of its own. */
const NESTING_KINDS: ReadonlySet<IRNode["kind"]> = new Set(["object", "array", "tuple", "union", "intersection", "check"]);

type Schema = Record<string, unknown>;

/**
 * Builds IR for every schema of one module (one server), sharing its definitions.
 * `scope` hands out the module's type names, so definitions never collide with tool types.
 */
export class IRBuilder {
  readonly definitions: NamedDefinition[] = [];
  readonly warnings: IRWarning[] = [];
  /** Pointers of the parts nested too deep to build: typed as unknown, or a `const` or `enum` ignored. */
  readonly tooDeep: string[] = [];
  private readonly defined = new Map<object, string>();
  /** Definitions without inner `$ref`s, by content: tools that share a model share one type. */
  private readonly definedByContent = new Map<string, string>();
  private tool = "";
  private root: unknown;
  private modern = true;
  /** No nested `$id`: every `$dynamicRef` resolves as a `$ref` would. */
  private singleResource = true;
  /**
   * Definitions being built with no object or array between them and here: a reference back to one
   * is a cycle with no structure in between (`A → B → A`, `{"$ref": "#"}`), which no type alias can
   * express and which no validator can finish. Reset inside objects and arrays, where a cycle is a tree.
   */
  private unguarded = new Set<string>();

  /**
   * `nameEvery`: every this many levels, a part with structure becomes a named definition, for a
   * language that cannot hold deeper nesting in one expression (the emitter says; none by default).
   */
  constructor(
    private readonly scope: NameScope,
    private readonly options: { nameEvery?: number } = {},
  ) {}

  /** The IR of one schema of `tool`; `pointer` locates it in the tool object, for warnings. */
  build(schema: unknown, tool: string, pointer: string): IRNode {
    this.tool = tool;
    this.root = schema;
    // Draft-04 to -07 keep their older `$ref` rule.
    this.modern = !isDraft07OrOlder(schema);
    this.singleResource = isSingleResource(schema);
    return this.node(schema, pointer, schema, 0);
  }

  /** Once per pointer and message: conditions of `unevaluated*` build their subschemas a second time. */
  private warn(pointer: string, message: string): void {
    if (this.warnings.some((seen) => seen.tool === this.tool && seen.pointer === pointer && seen.message === message)) return;
    this.warnings.push({ tool: this.tool, pointer, message });
  }

  private node(schema: unknown, pointer: string, resource: unknown, depth: number): IRNode {
    const built = this.unnamed(schema, pointer, resource, depth);
    const every = this.options.nameEvery;
    if (every === undefined || depth === 0 || depth % every !== 0 || !NESTING_KINDS.has(built.kind)) return built;
    const { name } = this.scope.claim(pascalCase(`${this.tool} ${nearestProperty(pointer)}`, "Part"), ["Schema"]);
    this.definitions.push({ name, node: built, pointer });
    return { kind: "ref", name };
  }

  private unnamed(schema: unknown, pointer: string, resource: unknown, depth: number): IRNode {
    if (schema === true) return { kind: "unknown" };
    if (schema === false) return { kind: "never" };
    if (!isObject(schema)) {
      this.warn(pointer, "not a JSON Schema (expected an object or a boolean)");
      return { kind: "unknown" };
    }
    if (depth > MAX_DEPTH) {
      this.warn(pointer, `nested deeper than ${MAX_DEPTH} levels`);
      this.tooDeep.push(pointer);
      return { kind: "unknown" };
    }
    // A nested `$id` starts a new schema resource: its `#...` refs resolve against it.
    const base = schema !== this.root && typeof schema.$id === "string" && !schema.$id.startsWith("#") ? schema : resource;
    if ("$recursiveRef" in schema) this.warn(`${pointer}/$recursiveRef`, `"$recursiveRef" cannot be checked; it is ignored (wider)`);

    const parts: IRNode[] = [];
    if (typeof schema.$ref === "string") {
      parts.push(this.ref(schema.$ref, `${pointer}/$ref`, base, depth));
      // Before 2019-09, keywords beside `$ref` are ignored.
      if (!this.modern) return parts[0]!;
    }
    if (typeof schema.$dynamicRef === "string") {
      // With one schema resource, the dynamic scope holds one anchor of each name: the static target.
      if (this.singleResource) parts.push(this.ref(schema.$dynamicRef, `${pointer}/$dynamicRef`, base, depth));
      else this.warn(`${pointer}/$dynamicRef`, `"$dynamicRef" across schema resources cannot be checked; it is ignored (wider)`);
    }
    const typed = this.typed(schema, pointer, base, depth);
    if (typed !== undefined) parts.push(typed);
    for (const keyword of ["anyOf", "oneOf"] as const) {
      const list = schema[keyword];
      if (list === undefined) continue;
      if (!Array.isArray(list) || list.length === 0) {
        this.warn(`${pointer}/${keyword}`, `"${keyword}" must be a non-empty array; this part is typed as unknown`);
        return { kind: "unknown" };
      }
      const members = list.map((member, index) => this.node(member, `${pointer}/${keyword}/${index}`, base, depth + 1));
      parts.push(members.length === 1 ? members[0]! : { kind: "union", members, exactlyOne: keyword === "oneOf" });
    }
    if (schema.allOf !== undefined) {
      if (!Array.isArray(schema.allOf) || schema.allOf.length === 0) {
        this.warn(`${pointer}/allOf`, `"allOf" must be a non-empty array; this part is typed as unknown`);
        return { kind: "unknown" };
      }
      for (const [index, member] of schema.allOf.entries()) parts.push(this.node(member, `${pointer}/allOf/${index}`, base, depth + 1));
    }
    parts.push(
      ...checksOf(schema, pointer, {
        modern: this.modern,
        build: (sub, at) => this.node(sub, at, base, depth + 1),
        buildForStrings: (sub, at) => intersect([{ kind: "string" }, this.node(sub, at, base, depth + 1)]),
        target: (ref) => this.target(ref, base),
        warn: (at, message) => this.warn(at, message),
      }),
    );
    let result = intersect(parts);
    if (schema.nullable === true && !admitsNull(result)) result = { kind: "union", members: [result, { kind: "null" }], exactlyOne: false };
    return result;
  }

  /** `type`, `enum`, `const` and the per-type keywords; undefined when the schema says nothing of them. */
  private typed(schema: Schema, pointer: string, base: unknown, depth: number): IRNode | undefined {
    const types = this.types(schema, pointer);
    if (types === null) return { kind: "unknown" };
    const keywords = Object.keys(schema);
    const mentions = (keys: string[]) => keys.some((key) => keywords.includes(key));
    if ("const" in schema || "enum" in schema) {
      if ("enum" in schema && !Array.isArray(schema.enum)) {
        this.warn(`${pointer}/enum`, `"enum" must be an array; this part is typed as unknown`);
        return { kind: "unknown" };
      }
      const { const: _const, enum: _enum, ...rest } = schema;
      // Literal types and checks of such a value would have to recurse as deep as it nests (an enum's values sit one level down).
      const deep = (["const", "enum"] as const).find(
        (key) => key in schema && valueDeeperThan(schema[key], MAX_DEPTH + (key === "enum" ? 1 : 0)),
      );
      if (deep !== undefined) {
        this.warn(`${pointer}/${deep}`, `a value nested deeper than ${MAX_DEPTH} levels cannot be checked; "${deep}" is ignored (wider)`);
        this.tooDeep.push(`${pointer}/${deep}`);
        return this.typed(rest, pointer, base, depth) ?? { kind: "unknown" };
      }
      const listed = "enum" in schema ? (schema.enum as JsonValue[]) : undefined;
      // `const` beside `enum` must also be one of its values.
      const values =
        "const" in schema
          ? [schema.const as JsonValue].filter((value) => listed === undefined || listed.some((other) => jsonEquals(other, value)))
          : listed!;
      const literals = filterLiterals(values, types);
      // Per-type keywords beside the values constrain them too (`enum` of strings with `minLength`).
      if (!mentions(TYPED_KEYS)) return literals;
      return intersect([literals, this.typed(rest, pointer, base, depth) ?? { kind: "unknown" }]);
    }
    // Without `type`, each keyword constrains only instances of its own type; others pass.
    const wanted: JsonType[] | undefined =
      types ?? (mentions(TYPED_KEYS) ? ["string", "number", "boolean", "null", "array", "object"] : undefined);
    if (wanted === undefined) return undefined;
    const members = wanted
      .filter((type) => !(type === "integer" && wanted.includes("number")))
      .map((type) => this.ofType(type, schema, pointer, base, depth));
    return members.length === 1 ? members[0] : { kind: "union", members, exactlyOne: false };
  }

  /** The schema's `type` as a list; undefined when absent; null (after a warning) when malformed. */
  private types(schema: Schema, pointer: string): JsonType[] | undefined | null {
    if (schema.type === undefined) return undefined;
    const list = Array.isArray(schema.type) ? schema.type : [schema.type];
    const unknown = list.filter((type) => !JSON_TYPES.includes(type as JsonType));
    if (unknown.length > 0 || list.length === 0) {
      this.warn(`${pointer}/type`, `unknown type ${JSON.stringify(unknown[0] ?? list)}; this part is typed as unknown`);
      return null;
    }
    return [...new Set(list as JsonType[])];
  }

  private ofType(type: JsonType, schema: Schema, pointer: string, base: unknown, depth: number): IRNode {
    switch (type) {
      case "null":
        return { kind: "null" };
      case "boolean":
        return { kind: "boolean" };
      case "string":
        return this.string(schema, pointer);
      case "number":
      case "integer":
        return number(schema, type === "integer");
      case "array":
        return this.guarded(() => this.array(schema, pointer, base, depth));
      case "object":
        return this.guarded(() => this.object(schema, pointer, base, depth));
    }
  }

  private guarded<T>(build: () => T): T {
    const outer = this.unguarded;
    this.unguarded = new Set();
    try {
      return build();
    } finally {
      this.unguarded = outer;
    }
  }

  private string(schema: Schema, pointer: string): StringNode {
    const node: StringNode = { kind: "string" };
    if (isCount(schema.minLength)) node.minLength = schema.minLength;
    if (isCount(schema.maxLength)) node.maxLength = schema.maxLength;
    if (typeof schema.format === "string") node.format = schema.format;
    if (typeof schema.pattern === "string") {
      const problem = patternProblem(schema.pattern);
      if (problem === undefined) node.pattern = schema.pattern;
      else this.warn(`${pointer}/pattern`, problem);
    }
    return node;
  }

  private array(schema: Schema, pointer: string, base: unknown, depth: number): IRNode {
    const bounds = {
      ...(isCount(schema.minItems) ? { minItems: schema.minItems } : {}),
      ...(isCount(schema.maxItems) ? { maxItems: schema.maxItems } : {}),
      ...(schema.uniqueItems === true ? { uniqueItems: true } : {}),
    };
    // 2020-12 `prefixItems` + `items`, or draft-07 `items: [...]` + `additionalItems`.
    const prefixKey = Array.isArray(schema.prefixItems) ? "prefixItems" : Array.isArray(schema.items) ? "items" : undefined;
    if (prefixKey !== undefined) {
      const restKey = prefixKey === "prefixItems" ? "items" : "additionalItems";
      const prefix = (schema[prefixKey] as unknown[]).slice(0, bounds.maxItems ?? Infinity);
      const items = prefix.map((item, index) => this.node(item, `${pointer}/${prefixKey}/${index}`, base, depth + 1));
      const restSchema = schema[restKey];
      const rest =
        restSchema === undefined ? { kind: "unknown" as const } : this.node(restSchema, `${pointer}/${restKey}`, base, depth + 1);
      return {
        kind: "tuple",
        items,
        required: Math.min(bounds.minItems ?? 0, items.length),
        rest: rest.kind === "never" || (bounds.maxItems !== undefined && bounds.maxItems <= items.length) ? null : rest,
        ...bounds,
      };
    }
    const items = schema.items === undefined ? { kind: "unknown" as const } : this.node(schema.items, `${pointer}/items`, base, depth + 1);
    return { kind: "array", items, ...bounds };
  }

  private object(schema: Schema, pointer: string, base: unknown, depth: number): ObjectNode {
    const declared = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((key): key is string => typeof key === "string") : []);
    const properties: PropertyNode[] = Object.entries(declared).map(([name, value]) => ({
      name,
      node: this.node(value, `${pointer}/properties/${escapePointer(name)}`, base, depth + 1),
      required: required.has(name),
      ...(isObject(value) && typeof value.description === "string" ? { description: value.description } : {}),
    }));
    const extra = schema.additionalProperties;
    let additional: IRNode | boolean = true;
    if (extra === false) additional = false;
    else if (extra !== undefined && extra !== true) {
      const node = this.node(extra, `${pointer}/additionalProperties`, base, depth + 1);
      additional = node.kind === "unknown" ? true : node;
    }
    const patterns: PatternNode[] = Object.entries(isObject(schema.patternProperties) ? schema.patternProperties : {}).flatMap(
      ([pattern, value]) => {
        const at = `${pointer}/patternProperties/${escapePointer(pattern)}`;
        const problem = patternProblem(pattern);
        if (problem !== undefined) {
          this.warn(at, problem);
          return [];
        }
        return [{ pattern, node: this.node(value, at, base, depth + 1) }];
      },
    );
    // A required key without a declared schema must be present, with a value its pattern (checked
    // beside the shape) or `additionalProperties` allows: none when that is `false`.
    for (const name of required) {
      if (Object.hasOwn(declared, name)) continue;
      const matched = patterns.some((entry) => linearPattern(entry.pattern).test(name));
      const node: IRNode = matched || additional === true ? { kind: "unknown" } : additional === false ? { kind: "never" } : additional;
      properties.push({ name, node, required: true });
    }
    return {
      kind: "object",
      properties,
      additional,
      ...(patterns.length > 0 ? { patterns } : {}),
      ...(isCount(schema.minProperties) ? { minProperties: schema.minProperties } : {}),
      ...(isCount(schema.maxProperties) ? { maxProperties: schema.maxProperties } : {}),
    };
  }

  /**
   * A definition's pointer within the root schema: `within` itself in the root resource; in a
   * nested `$id` resource (found by identity), that resource's own pointer comes first.
   */
  private pointerOf(within: string, resource: unknown): string {
    if (resource === this.root) return within;
    for (const visit of walkSchemas(this.root)) if (visit.node === resource) return `${visit.pointer}${within}`;
    return within;
  }

  /** A local `$ref`'s target schema (an object or a boolean); undefined when it has none. */
  private target(ref: string, resource: unknown): Schema | boolean | undefined {
    const resolved = resolveRef(resource, ref);
    return resolved.kind === "found" && (isObject(resolved.node) || typeof resolved.node === "boolean") ? resolved.node : undefined;
  }

  /** A local `$ref` as a reference to a hoisted definition; anything else is unknown with a warning. */
  private ref(ref: string, pointer: string, resource: unknown, depth: number): IRNode {
    const resolved = resolveRef(resource, ref);
    if (resolved.kind === "remote") {
      this.warn(pointer, `$ref ${JSON.stringify(ref)} points outside the schema and is not fetched; typed as unknown`);
      return { kind: "unknown" };
    }
    if (resolved.kind === "malformed") {
      this.warn(pointer, `malformed $ref ${JSON.stringify(ref)}; typed as unknown`);
      return { kind: "unknown" };
    }
    const target = resolved.kind === "found" && (isObject(resolved.node) || typeof resolved.node === "boolean") ? resolved.node : undefined;
    if (resolved.kind !== "found" || target === undefined) {
      this.warn(pointer, `dangling $ref ${JSON.stringify(ref)}; typed as unknown`);
      return { kind: "unknown" };
    }
    if (typeof target === "boolean") return target ? { kind: "unknown" } : { kind: "never" };
    const existing = this.defined.get(target);
    if (existing !== undefined && this.unguarded.has(existing)) {
      this.warn(pointer, `$ref ${JSON.stringify(ref)} closes a reference cycle with no object or array in between; typed as any value`);
      return { kind: "unknown" };
    }
    if (existing !== undefined) return { kind: "ref", name: existing };
    const text = jsonText(target);
    const content = text.includes('"$ref"') ? undefined : text;
    const same = content === undefined ? undefined : this.definedByContent.get(content);
    if (same !== undefined) {
      this.defined.set(target, same);
      return { kind: "ref", name: same };
    }

    // An anchor names its target; a pointer's last segment does.
    const fragment = decodeURIComponent(ref.slice(1));
    const last = fragment === "" || fragment.startsWith("/") ? (resolved.pointer.split("/").pop() ?? "") : fragment;
    const suggested = typeof target.title === "string" && target.title.trim() !== "" ? target.title : unescapePointer(last);
    const { name } = this.scope.claim(pascalCase(suggested, "Definition"), ["Schema"]);
    this.defined.set(target, name);
    if (content !== undefined) this.definedByContent.set(content, name);
    const definition: NamedDefinition = { name, node: { kind: "unknown" }, pointer: this.pointerOf(resolved.pointer, resource) };
    this.definitions.push(definition);
    this.unguarded.add(name);
    try {
      definition.node = this.node(target, `${pointer.replace(/\/\$ref$/, "")}→${ref}`, resource, depth + 1);
    } finally {
      this.unguarded.delete(name);
    }
    if (typeof target.description === "string") definition.description = target.description;
    return { kind: "ref", name };
  }
}

/** The name of the property `pointer` is in, unescaped; "part" outside every property. */
function nearestProperty(pointer: string): string {
  const segments = pointer.split("/");
  for (let index = segments.length - 1; index > 0; index--) {
    if (segments[index - 1] === "properties") return unescapePointer(segments[index]!);
  }
  return "part";
}

function number(schema: Schema, integer: boolean): NumberNode {
  const node: NumberNode = { kind: "number", integer };
  // JSON has no infinities; a bound like 1e999 parses as one and would emit invalid code.
  const finite = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value);
  if (finite(schema.minimum)) {
    // draft-04: a boolean `exclusiveMinimum` turns `minimum` exclusive.
    if (schema.exclusiveMinimum === true) node.exclusiveMinimum = schema.minimum;
    else node.minimum = schema.minimum;
  }
  if (finite(schema.maximum)) {
    if (schema.exclusiveMaximum === true) node.exclusiveMaximum = schema.maximum;
    else node.maximum = schema.maximum;
  }
  if (finite(schema.exclusiveMinimum)) node.exclusiveMinimum = schema.exclusiveMinimum;
  if (finite(schema.exclusiveMaximum)) node.exclusiveMaximum = schema.exclusiveMaximum;
  if (finite(schema.multipleOf) && schema.multipleOf > 0) node.multipleOf = schema.multipleOf;
  if (typeof schema.format === "string") node.format = schema.format;
  return node;
}

/** Enum and const values, keeping only those of the listed types (when `type` is given too). */
function filterLiterals(values: JsonValue[], types: JsonType[] | undefined): IRNode {
  const kept = types === undefined ? values : values.filter((value) => types.some((type) => hasType(value, type)));
  // By JSON text, in one pass: servers send enums of tens of thousands of values.
  const seen = new Set<string>();
  const unique = kept.filter((value) => {
    const text = JSON.stringify(value);
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
  return unique.length === 0 ? { kind: "never" } : { kind: "literals", values: unique };
}

function hasType(value: JsonValue, type: JsonType): boolean {
  switch (type) {
    case "null":
      return value === null;
    case "integer":
      return typeof value === "number" && Number.isInteger(value);
    case "array":
      return Array.isArray(value);
    case "object":
      return isObject(value);
    default:
      return typeof value === type;
  }
}

function admitsNull(node: IRNode): boolean {
  if (node.kind === "null" || node.kind === "unknown") return true;
  if (node.kind === "literals") return node.values.includes(null);
  if (node.kind === "union") return node.members.some(admitsNull);
  return false;
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}
