/**
 * What a model sent under a profile, turned back into the arguments the tool's own schema
 * accepts. Each step undoes one encoding normalize recorded (`encoding.ts`), and only where it
 * recorded it: the model's value is walked along the normalized schema, JSON text is parsed at the
 * nodes made JSON text, a wrapped root is unwrapped, and, led by the original schema's own errors,
 * a `null` on a property the encoding made required is dropped where the original rejects `null`,
 * and a string at a node whose enum became strings is turned back into the enum's value.
 */

import { notJsonAt } from "@pmcp-codegen/runtime/internal/json";
import { PmcpError } from "../errors.js";
import { describeErrors } from "../json-schema/error-text.js";
import type { Schema } from "../json-schema/keywords.js";
import { isObject, joinPointer, pointerKeys } from "../json-schema/pointer.js";
import { valueDeeperThan } from "../json-schema/predicates.js";
import { followRefs } from "../json-schema/refs.js";
import { nestedBeyond, walkSchemas } from "../json-schema/traverse.js";
import { type ErrorObject, UnusableSchemaError, type ValidateFunction, validatorFor } from "../json-schema/validator.js";
import type { Profile } from "../providers/facts.js";
import type { Encoding } from "./encoding.js";
import { MAX_NORMALIZE_DEPTH, normalizedFor } from "./normalize.js";
import { perProfile } from "./per-profile.js";

/** Why a model's arguments could not be restored; stable, for switches. */
export type RestoreErrorCode =
  /** A value the encoding sends as JSON text is not JSON. */
  | "INVALID_JSON_TEXT"
  /** The root was wrapped and the model did not send the wrapping property. */
  | "MISSING_WRAPPED_VALUE"
  /** After restoring, the arguments still do not match the tool's schema. */
  | "INVALID_ARGUMENTS"
  /** The arguments, or a JSON-text value, nest deeper than any tool's arguments do. */
  | "TOO_DEEP"
  /**
   * A number JSON cannot carry: `1e400` parses as `Infinity`, which schemas count as a number and
   * JSON.stringify sends as `null`.
   */
  | "NOT_FINITE"
  /** Nothing of the tool's own input schema can be checked, or it nests too deep to follow: no arguments are restored for it. */
  | "UNUSABLE_SCHEMA";

/**
 * Arguments that cannot be restored. The message names the JSON pointer and says what is wrong
 * in words a model can act on; `pointer` is the first place it is wrong.
 */
export class RestoreError extends PmcpError<RestoreErrorCode> {
  override readonly name = "RestoreError";

  constructor(
    code: RestoreErrorCode,
    readonly pointer: string,
    message: string,
  ) {
    super(code, message);
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
  /** The nodes of the normalized schema with an encoded node at or below them: the walk goes only there. */
  encodedBelow: ReadonlySet<Schema>;
  /** The original's validator, or why nothing of the original can be checked. */
  validate: ValidateFunction | UnusableSchemaError;
  members: WeakMap<Schema, ValidateFunction>;
}

/**
 * The arguments `schema` (a tool's original input schema) accepts, from what a model sent for
 * it under `options.profile`. Throws a RestoreError naming the JSON pointer when they cannot be.
 */
export function restoreArguments(schema: unknown, modelArgs: unknown, options: RestoreOptions): unknown {
  const deep = tooDeep(schema);
  if (deep !== undefined)
    throw new RestoreError(
      "UNUSABLE_SCHEMA",
      "/",
      `the tool's input schema nests deeper than ${MAX_NORMALIZE_DEPTH} levels (at ${deep}), so no arguments are sent`,
    );
  const prepared = prepare(schema, options.profile);
  if (prepared.validate instanceof UnusableSchemaError)
    throw new RestoreError(
      "UNUSABLE_SCHEMA",
      "/",
      `the tool's input schema cannot be checked, so no arguments are sent: ${prepared.validate.message}`,
    );
  const { validate } = prepared;
  checkDepth(modelArgs, "");
  checkFinite(modelArgs, "");
  const found: Found = { nulls: new Set(), enums: new Set(), texts: new Map() };
  const decoded = prepared.encodedBelow.size === 0 ? modelArgs : decode(modelArgs, prepared.normalized, prepared, "", found);
  const { wrapped } = prepared.encoding;
  const unwrapped = unwrap(decoded, wrapped);
  if (wrapped === undefined) return repaired(unwrapped, validate, found);
  // Where the walk found them, in the unwrapped value.
  const shift = (pointers: Set<string>) => new Set([...pointers].map((pointer) => pointer.slice(wrapped.length + 1)));
  const texts = new Map([...found.texts].map(([pointer, error]) => [pointer.slice(wrapped.length + 1), error]));
  return repaired(unwrapped, validate, { nulls: shift(found.nulls), enums: shift(found.enums), texts });
}

/** Where a schema nests deeper than normalizing can follow, once per schema object. */
const depths = new WeakMap<object, string | undefined>();
function tooDeep(schema: unknown): string | undefined {
  if (!isObject(schema)) return undefined;
  if (!depths.has(schema)) depths.set(schema, nestedBeyond(schema, MAX_NORMALIZE_DEPTH));
  return depths.get(schema);
}

/** Where the model's value holds what an encoding made: a `null` for "not given", a string for an enum value. */
interface Found {
  nulls: Set<string>;
  enums: Set<string>;
  /**
   * Text sent where JSON text was asked for that does not parse: kept as the string it can only
   * mean, and, where the original rejects a string there, the error that says it is not JSON.
   */
  texts: Map<string, RestoreError>;
}

/**
 * Deeper than this, arguments are refused before anything walks them: no tool schema nests near it,
 * and walking (or cloning) a value nested thousands deep overflows the stack.
 */
const MAX_ARGUMENT_DEPTH = 256;

function checkDepth(value: unknown, pointer: string): void {
  if (valueDeeperThan(value, MAX_ARGUMENT_DEPTH))
    throw new RestoreError("TOO_DEEP", pointer || "/", `${pointer || "/"}: nested deeper than ${MAX_ARGUMENT_DEPTH} levels`);
}

/** Refuses what would reach the server as another value: a number that is not finite is sent as `null`. */
function checkFinite(value: unknown, pointer: string): void {
  const notJson = notJsonAt(value);
  if (notJson === undefined) return;
  const at = `${pointer}${notJson.pointer}` || "/";
  throw new RestoreError("NOT_FINITE", at, `${at}: ${notJson.reason}; send a finite number`);
}

/** What restoring `schema` under `profile` needs, once per schema object and profile (the validator is validatorFor's, once per schema). */
const preparedFor = perProfile((schema: Schema, profile): Prepared => {
  const { schema: normalized, encoding } = normalizedFor(schema, profile);
  const encoded = new Set([...encoding.jsonText, ...encoding.enumStrings, ...encoding.madeRequired.keys()]);
  return {
    normalized,
    encoding,
    encodedBelow: encodedBelow(normalized, encoded),
    validate: compiled(schema),
    members: new WeakMap(),
  };
});

const prepare = (schema: unknown, profile: Profile): Prepared =>
  preparedFor(isObject(schema) ? schema : schema === false ? NOTHING : EVERYTHING, profile);

/**
 * The original's validator, for all of it that can be checked (validatorFor): arguments never pass
 * unchecked. A schema nothing of which can be checked is kept as the reason every call is refused.
 */
function compiled(schema: unknown): ValidateFunction | UnusableSchemaError {
  try {
    return validatorFor(schema).validate;
  } catch (error) {
    if (error instanceof UnusableSchemaError) return error;
    throw error;
  }
}

/** A boolean schema as an object: `true` admits every value, `false` none. */
const EVERYTHING: Schema = {};
const NOTHING: Schema = { not: {} };

/** Every node with an encoded node at or below it, references followed (to a fixed point, as they may loop). */
function encodedBelow(root: Schema, encoded: ReadonlySet<Schema>): Set<Schema> {
  const holders = new Set<Schema>();
  if (encoded.size === 0) return holders;
  const visits = [...walkSchemas(root)];
  const mark = (start: (typeof visits)[number]) => {
    for (let at: (typeof visits)[number] | undefined = start; at !== undefined && !holders.has(at.node); at = at.parent)
      holders.add(at.node);
  };
  for (const visit of visits) if (encoded.has(visit.node)) mark(visit);
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

/**
 * `value` with every JSON-text value the normalized schema put at its place parsed, recording in
 * `found` the nulls and strings that sit where an encoding made them. A parsed value is the tool's
 * own: nothing inside it is looked at again.
 */
function decode(value: unknown, node: unknown, prepared: Prepared, pointer: string, found: Found): unknown {
  const schema = followRefs(prepared.normalized, node);
  if (!isObject(schema) || !prepared.encodedBelow.has(schema)) return value;
  const { jsonText, enumStrings, madeRequired } = prepared.encoding;
  if (jsonText.has(schema)) return typeof value === "string" ? parsed(value, pointer, found) : value;
  if (enumStrings.has(schema) && typeof value === "string") found.enums.add(pointer);
  if (Array.isArray(schema.anyOf)) {
    // The member the model's value was written for: one that accepts it as sent, plain values before JSON text.
    const members = schema.anyOf.filter(isObject);
    const ordered = [...members.filter((member) => !jsonText.has(member)), ...members.filter((member) => jsonText.has(member))];
    const member = ordered.find((candidate) => memberAccepts(candidate, value, prepared));
    return member === undefined ? value : decode(value, member, prepared, pointer, found);
  }
  if (Array.isArray(value))
    return isObject(schema.items) ? value.map((item, index) => decode(item, schema.items, prepared, `${pointer}/${index}`, found)) : value;
  if (!isObject(value)) return value;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = madeRequired.get(schema);
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    const at = joinPointer(pointer, [key]);
    if (item === null && required?.has(key)) found.nulls.add(at);
    const sub = Object.hasOwn(properties, key) ? properties[key] : schema.additionalProperties;
    // defineProperty: a "__proto__" key is data like any other.
    Object.defineProperty(out, key, {
      value: decode(item, sub, prepared, at, found),
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
    // Only picks the member to decode along; the original's validator checks the result.
    validate = validatorFor({ ...context, ...member }).validate;
    prepared.members.set(member, validate);
  }
  return validate(value) as boolean;
}

/**
 * The value JSON text stands for. Text that does not parse can only mean itself: a model that means a
 * plain string very often sends it unquoted. It is kept as that string, and the original's validation
 * decides (`texts` holds the error to give where the original takes no string there).
 */
function parsed(text: string, pointer: string, found: Found): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const preview = text.length > 40 ? `${JSON.stringify(text.slice(0, 40))}…` : JSON.stringify(text);
    found.texts.set(
      pointer,
      new RestoreError(
        "INVALID_JSON_TEXT",
        pointer || "/",
        `${pointer || "/"}: expected the value written as JSON text, got ${preview} (${error instanceof Error ? error.message : String(error)})`,
      ),
    );
    return text;
  }
  checkDepth(value, pointer);
  checkFinite(value, pointer);
  return value;
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
 * `value` repaired where the original schema's errors meet what the walk found: a `null` the
 * encoding asked for is dropped where the original rejects it, unless dropping it leaves a
 * property missing that the original requires (then the error says so); a string where the enum
 * became strings is turned back into the original enum (or const) value written the same way.
 */
function repaired(value: unknown, validate: ValidateFunction, found: Found): unknown {
  if (validate(value)) return value;
  // Nothing the encoding made is there to repair: the errors stand (validated once, however many).
  if (found.nulls.size === 0 && found.enums.size === 0) throw refusal(validate.errors ?? [], found);
  const current = { value: structuredClone(value) };
  const kept = new Set<string>();
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const edits = editsFor(current.value, validate.errors ?? [], found, kept);
    if (edits.size === 0) break;
    const before = new Map([...edits.keys()].map((pointer) => [pointer, valueAt(current.value, pointer)]));
    for (const [pointer, edit] of edits) apply(current, pointer, edit);
    if (validate(current.value)) return current.value;
    // A dropped null whose property is required goes back: the model's null was its answer, and the error will say so.
    for (const error of validate.errors ?? []) {
      const missing = missingProperty(error);
      if (missing === undefined) continue;
      const pointer = joinPointer(error.instancePath, [missing]);
      if (edits.get(pointer)?.kind !== "drop") continue;
      kept.add(pointer);
      apply(current, pointer, { kind: "set", value: before.get(pointer) });
    }
    if (validate(current.value)) return current.value;
  }
  validate(current.value);
  throw refusal(validate.errors ?? [], found);
}

/** The error for arguments the original rejects. */
function refusal(errors: readonly ErrorObject[], found: Found): RestoreError {
  // Text that was not JSON, where the original takes no string: the model's mistake is the JSON.
  if (found.texts.size > 0)
    for (const error of errors) {
      const notJson = found.texts.get(error.instancePath);
      if (notJson !== undefined) return notJson;
    }
  return invalid(errors);
}

/** The property an error says is missing (`required`, `dependentRequired`, draft-07 `dependencies`). */
function missingProperty(error: ErrorObject): string | undefined {
  const missing = error.params.missingProperty ?? error.params.property;
  return ["required", "dependentRequired", "dependencies"].includes(error.keyword) && typeof missing === "string" ? missing : undefined;
}

function editsFor(value: unknown, errors: readonly ErrorObject[], found: Found, kept: ReadonlySet<string>): Map<string, Edit> {
  const edits = new Map<string, Edit>();
  for (const error of errors) {
    const pointer = error.instancePath;
    if (edits.has(pointer)) continue;
    const at = valueAt(value, pointer);
    if (at === null && found.nulls.has(pointer) && !kept.has(pointer)) edits.set(pointer, { kind: "drop" });
    else if (typeof at === "string" && found.enums.has(pointer) && (error.keyword === "enum" || error.keyword === "const")) {
      const allowed: unknown[] = error.keyword === "enum" ? (error.params.allowedValues as unknown[]) : [error.params.allowedValue];
      const match = allowed.find((candidate) => typeof candidate !== "string" && JSON.stringify(candidate) === at);
      if (match !== undefined) edits.set(pointer, { kind: "set", value: match });
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
