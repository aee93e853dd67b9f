import { describeErrors } from "../json-schema/error-text.js";
import type { Schema } from "../json-schema/keywords.js";
import { isObject, joinPointer, pointerKeys } from "../json-schema/pointer.js";
import { followRefs } from "../json-schema/refs.js";
import { walkSchemas } from "../json-schema/traverse.js";
import { compileSchema, type ErrorObject, type ValidateFunction } from "../json-schema/validator.js";
import type { Profile } from "../providers/facts.js";
import type { Encoding } from "./json-text.js";
import { normalizedFor } from "./normalize.js";

/**
 * What a model sent under a profile, turned back into the arguments the tool's own schema
 * accepts. Each step undoes one encoding normalize applied, and only where it applied it: JSON
 * text is parsed where the normalized schema has a JSON-text node, a wrapped root is unwrapped,
 * and, led by the original schema's own errors, a `null` the original rejects on an optional
 * property is dropped, and an enum value sent as a string becomes the enum's number or boolean.
 */

export type RestoreErrorCode =
  /** A value the encoding sends as JSON text is not JSON. */
  | "INVALID_JSON_TEXT"
  /** The root was wrapped and the model did not send the wrapping property. */
  | "MISSING_WRAPPED_VALUE"
  /** After restoring, the arguments still do not match the tool's schema. */
  | "INVALID_ARGUMENTS";

/**
 * Arguments that cannot be restored. The message names the JSON pointer and says what is wrong
 * in words a model can act on; `pointer` is the first place it is wrong.
 */
export class RestoreError extends Error {
  override readonly name = "RestoreError";

  constructor(
    readonly code: RestoreErrorCode,
    readonly pointer: string,
    message: string,
  ) {
    super(message);
  }
}

export interface RestoreOptions {
  /** The profile the model saw the tool's schema normalized for. */
  profile: Profile;
}

/** Everything restoring one schema under one profile needs, computed on its first call. */
interface Prepared {
  normalized: Schema;
  encoding: Encoding;
  /** The nodes of the normalized schema with a JSON-text node at or below them. */
  encodedBelow: ReadonlySet<Schema>;
  /** Enum values were sent as strings (Gemini's OpenAPI subset). */
  enumsAsStrings: boolean;
  /** Undefined when the original does not compile (a remote `$ref`): the arguments are then only decoded. */
  validate: ValidateFunction | undefined;
  members: WeakMap<Schema, ValidateFunction>;
}

/** Per original schema: its validator (compiled once, whatever the profile) and what each profile needs. */
const cache = new WeakMap<object, { validate: ValidateFunction | undefined; byProfile: Map<Profile, Prepared> }>();

/**
 * The arguments `schema` (a tool's original input schema) accepts, from what a model sent for
 * it under `options.profile`. Throws a RestoreError naming the JSON pointer when they cannot be.
 */
export function restoreArguments(schema: unknown, modelArgs: unknown, options: RestoreOptions): unknown {
  const prepared = prepare(schema, options.profile);
  const decoded = prepared.encodedBelow.size === 0 ? modelArgs : decode(modelArgs, prepared.normalized, prepared, "");
  const unwrapped = unwrap(decoded, prepared.encoding.wrapped);
  return prepared.validate === undefined ? unwrapped : repaired(unwrapped, prepared);
}

function prepare(schema: unknown, profile: Profile): Prepared {
  const key = isObject(schema) ? schema : EMPTY;
  let entry = cache.get(key);
  if (entry === undefined) {
    entry = { validate: compiled(schema), byProfile: new Map() };
    cache.set(key, entry);
  }
  let prepared = entry.byProfile.get(profile);
  if (prepared === undefined) {
    const { schema: normalized, notes, encoding } = normalizedFor(key, profile);
    prepared = {
      normalized,
      encoding,
      encodedBelow: encodedBelow(normalized, encoding.jsonText),
      enumsAsStrings: notes.some((note) => note.kind === "enum-to-strings"),
      validate: entry.validate,
      members: new WeakMap(),
    };
    entry.byProfile.set(profile, prepared);
  }
  return prepared;
}

/** The original's validator; undefined when it does not compile (a remote `$ref`): the arguments are then only decoded. */
function compiled(schema: unknown): ValidateFunction | undefined {
  try {
    return compileSchema(schema === true || schema === undefined ? {} : schema);
  } catch {
    return undefined;
  }
}

const EMPTY: Schema = {};

/** Every node with a JSON-text node at or below it, references followed (to a fixed point, as they may loop). */
function encodedBelow(root: Schema, jsonText: ReadonlySet<Schema>): Set<Schema> {
  const holders = new Set<Schema>();
  if (jsonText.size === 0) return holders;
  const visits = [...walkSchemas(root)];
  const mark = (start: (typeof visits)[number]) => {
    for (let at: (typeof visits)[number] | undefined = start; at !== undefined && !holders.has(at.node); at = at.parent)
      holders.add(at.node);
  };
  for (const visit of visits) if (jsonText.has(visit.node)) mark(visit);
  for (let changed = true; changed; ) {
    changed = false;
    for (const visit of visits) {
      if (holders.has(visit.node) || typeof visit.node.$ref !== "string") continue;
      const target = followRefs(root, visit.node);
      if (isObject(target) && holders.has(target)) {
        mark(visit);
        changed = true;
      }
    }
  }
  return holders;
}

/** `value` with every JSON-text value the normalized schema put at its place parsed. */
function decode(value: unknown, node: unknown, prepared: Prepared, pointer: string): unknown {
  const schema = followRefs(prepared.normalized, node);
  if (!isObject(schema) || !prepared.encodedBelow.has(schema)) return value;
  if (prepared.encoding.jsonText.has(schema)) return typeof value === "string" ? parsed(value, pointer) : value;
  if (Array.isArray(schema.anyOf)) {
    // The member the model's value was written for: one that accepts it as sent, plain values before JSON text.
    const members = schema.anyOf.filter(isObject);
    const ordered = [
      ...members.filter((member) => !prepared.encoding.jsonText.has(member)),
      ...members.filter((member) => prepared.encoding.jsonText.has(member)),
    ];
    const member = ordered.find((candidate) => memberAccepts(candidate, value, prepared));
    return member === undefined ? value : decode(value, member, prepared, pointer);
  }
  if (Array.isArray(value))
    return isObject(schema.items) ? value.map((item, index) => decode(item, schema.items, prepared, `${pointer}/${index}`)) : value;
  if (!isObject(value)) return value;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const sub = Object.hasOwn(properties, key) ? properties[key] : schema.additionalProperties;
    // defineProperty: a "__proto__" key is data like any other.
    Object.defineProperty(out, key, {
      value: decode(item, sub, prepared, joinPointer(pointer, [key])),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** Whether a union member of the normalized schema accepts `value` as the model sent it. */
function memberAccepts(member: Schema, value: unknown, prepared: Prepared): boolean {
  let validate = prepared.members.get(member);
  if (validate === undefined) {
    // The member in the schema's own dialect, its references resolving against the schema's definitions.
    const context = Object.fromEntries(
      Object.entries(prepared.normalized).filter(([key]) => ["$schema", "$defs", "definitions"].includes(key)),
    );
    validate = compileSchema({ ...context, ...member });
    prepared.members.set(member, validate);
  }
  return validate(value) as boolean;
}

function parsed(text: string, pointer: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const preview = text.length > 40 ? `${JSON.stringify(text.slice(0, 40))}…` : JSON.stringify(text);
    throw new RestoreError(
      "INVALID_JSON_TEXT",
      pointer || "/",
      `${pointer || "/"}: expected the value written as JSON text, got ${preview} (${error instanceof Error ? error.message : String(error)})`,
    );
  }
}

function unwrap(value: unknown, wrapped: string | undefined): unknown {
  if (wrapped === undefined) return value;
  if (isObject(value) && Object.hasOwn(value, wrapped)) return value[wrapped];
  throw new RestoreError("MISSING_WRAPPED_VALUE", `/${wrapped}`, `/${wrapped}: is required (the tool's whole input goes in "${wrapped}")`);
}

/** A cap on repair rounds; each round changes at least one value for good, so real arguments need two or three. */
const MAX_ROUNDS = 16;

type Edit = { kind: "drop" } | { kind: "set"; value: unknown };

/**
 * `value` repaired where the original schema's errors show a model's encoding: a `null` on a
 * property whose schema rejects it is dropped, unless dropping it leaves a required property
 * missing; a string where an enum (or const) holds a number, boolean or null written the same
 * way becomes that value (only when the profile sent enums as strings).
 */
function repaired(value: unknown, prepared: Prepared): unknown {
  const validate = prepared.validate as ValidateFunction;
  if (validate(value)) return value;
  const current = { value: structuredClone(value) };
  const kept = new Set<string>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const edits = editsFor(current.value, validate.errors ?? [], prepared.enumsAsStrings, kept);
    if (edits.size === 0) break;
    const before = new Map([...edits.keys()].map((pointer) => [pointer, valueAt(current.value, pointer)]));
    for (const [pointer, edit] of edits) apply(current, pointer, edit);
    if (validate(current.value)) return current.value;
    // A dropped null whose property is required goes back: the model's null was its answer, and the error will say so.
    for (const error of validate.errors ?? []) {
      if (error.keyword !== "required" || typeof error.params.missingProperty !== "string") continue;
      const pointer = joinPointer(error.instancePath, [error.params.missingProperty]);
      if (edits.get(pointer)?.kind !== "drop") continue;
      kept.add(pointer);
      apply(current, pointer, { kind: "set", value: before.get(pointer) });
    }
    if (validate(current.value)) return current.value;
  }
  validate(current.value);
  throw invalid(validate.errors ?? []);
}

function editsFor(value: unknown, errors: readonly ErrorObject[], enumsAsStrings: boolean, kept: ReadonlySet<string>): Map<string, Edit> {
  const edits = new Map<string, Edit>();
  for (const error of errors) {
    const pointer = error.instancePath;
    if (pointer === "" || edits.has(pointer)) continue;
    const at = valueAt(value, pointer);
    if (at === null && !kept.has(pointer) && isObject(valueAt(value, parentOf(pointer)))) edits.set(pointer, { kind: "drop" });
    else if (typeof at === "string" && enumsAsStrings && (error.keyword === "enum" || error.keyword === "const")) {
      const allowed: unknown[] = error.keyword === "enum" ? (error.params.allowedValues as unknown[]) : [error.params.allowedValue];
      const match = allowed.find((candidate) => typeof candidate !== "string" && JSON.stringify(candidate) === at);
      if (match !== undefined || (at === "null" && allowed.includes(null))) edits.set(pointer, { kind: "set", value: match ?? null });
    }
  }
  return edits;
}

const parentOf = (pointer: string) => pointer.slice(0, pointer.lastIndexOf("/"));

function valueAt(root: unknown, pointer: string): unknown {
  let node = root;
  for (const key of pointerKeys(pointer)) {
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
  }
  return node;
}

function apply(current: { value: unknown }, pointer: string, edit: Edit): void {
  const parent = valueAt(current.value, parentOf(pointer));
  const key = pointerKeys(pointer).at(-1) as string;
  if (Array.isArray(parent)) {
    if (edit.kind === "set") parent[Number(key)] = edit.value;
  } else if (isObject(parent)) {
    if (edit.kind === "drop") delete parent[key];
    else Object.defineProperty(parent, key, { value: edit.value, enumerable: true, writable: true, configurable: true });
  }
}

function invalid(errors: readonly ErrorObject[]): RestoreError {
  const first = errors[0];
  const named = first?.params.missingProperty ?? first?.params.additionalProperty;
  const pointer =
    first === undefined ? "/" : typeof named === "string" ? joinPointer(first.instancePath, [named]) : first.instancePath || "/";
  return new RestoreError(
    "INVALID_ARGUMENTS",
    pointer,
    `the arguments do not match the tool's input schema at ${pointer}: ${describeErrors(errors)}. Correct them and call again.`,
  );
}
