import fc from "fast-check";
import { expect } from "vitest";
import { isObject } from "../../src/json-schema/pointer.js";
import { followRefs } from "../../src/json-schema/refs.js";
import { mapSchemas } from "../../src/json-schema/traverse.js";
import { validatorFor } from "../../src/json-schema/validator.js";
import { lintSchema } from "../../src/lint/lint.js";
import type { Encoding } from "../../src/normalize/encoding.js";
import { normalizedFor, normalizeSchemaWithNotes, type Profile } from "../../src/normalize/normalize.js";
import type { Schema } from "../../src/normalize/passes.js";
import { restoreArguments } from "../../src/normalize/restore.js";
import { samples } from "./samples.js";

export const errorRules = (schema: unknown, profile: Profile) =>
  [...new Set(lintSchema(schema, profile).flatMap((finding) => (finding.severity === "error" ? [finding.rule] : [])))].sort();

/**
 * Whether Ajv compiles `schema` and the sampler can build instances for it (it knows no lookahead in
 * patterns); asked once per schema, the sampler kept for `checkRoundTrip`.
 */
const samplers = new WeakMap<Schema, ReturnType<typeof samples> | undefined>();
export function sampleable(schema: Schema): boolean {
  if (!samplers.has(schema)) {
    try {
      validator(schema);
      samplers.set(schema, samples(schema));
    } catch {
      samplers.set(schema, undefined);
    }
  }
  return samplers.get(schema) !== undefined;
}

/**
 * Samples instances of `schema` and checks that each valid one, encoded as the profile documents,
 * is valid for the normalized schema; returns how many were checked.
 */
export function checkWidening(schema: Schema, profile: Profile, numRuns: number): number {
  const { schema: out, encoding } = normalizeSchemaWithNotes(schema, { profile });
  const valid = validator(schema);
  const validOut = validator(profile === "gemini" || profile === "portable" ? asGeminiReads(out) : out);
  let checked = 0;
  fc.assert(
    fc.property(samples(schema), (value) => {
      // Tool arguments and structured results are objects (MCP), whatever the root schema admits.
      if (!isObject(value) || !valid(value)) return true;
      checked++;
      const sent = asModelSends(value, out, encoding, profile).sent;
      expect(validOut(sent), `${profile} ${JSON.stringify(schema).slice(0, 300)}\n${JSON.stringify(value)}`).toBe(true);
    }),
    { numRuns, seed: 11 },
  );
  return checked;
}

/**
 * Samples instances valid for `schema`, writes each as a model would under the profile, and
 * checks that `restoreArguments` gives back an instance the original accepts, equal to the
 * sampled one unless writing it lost something (strict modes send declared properties only);
 * returns how many were checked.
 */
export function checkRoundTrip(schema: Schema, profile: Profile, numRuns: number): number {
  const { schema: out, encoding } = normalizedFor(schema, profile);
  const valid = validator(schema);
  const values = validSamples(schema, numRuns);
  for (const value of values) {
    const { sent, lossy } = asModelSends(value, out, encoding, profile);
    const restored = restoreArguments(schema, structuredClone(sent), { profile });
    const where = `${profile} ${JSON.stringify(schema).slice(0, 300)}\nvalue ${JSON.stringify(value)}\nsent ${JSON.stringify(sent)}`;
    expect(valid(restored), where).toBe(true);
    // As JSON: -0 and 0 are one number to a model. Under openai-strict an omitted property comes back as null where the original allows null.
    if (!lossy) expect(asJson(profile === "openai-strict" ? withoutAddedNulls(restored, value) : restored), where).toEqual(asJson(value));
  }
  return values.length;
}

/** Further draws of four for a schema none of whose first samples is valid. */
const MORE_DRAWS = 5;

/** Instances valid for `schema`, sampled once per schema (every profile checks the same ones). */
const sampled = new WeakMap<Schema, unknown[]>();
function validSamples(schema: Schema, numRuns: number): unknown[] {
  let values = sampled.get(schema);
  if (values === undefined) {
    const valid = validator(schema);
    const sampler = samplers.get(schema) ?? samples(schema);
    values = fc.sample(sampler, { numRuns, seed: 7 }).filter((value) => valid(value));
    // The sampler mixes in invalid values on purpose: draw on (a bounded number) until one tool has one valid instance.
    for (let seed = 8; values.length === 0 && seed < 8 + MORE_DRAWS; seed++)
      values = fc.sample(sampler, { numRuns: 4, seed }).filter((value) => valid(value));
    sampled.set(schema, values);
  }
  return values;
}

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

/** `restored` without the null-valued properties that `value` does not have, at any depth. */
function withoutAddedNulls(restored: unknown, value: unknown): unknown {
  if (Array.isArray(restored) && Array.isArray(value)) return restored.map((item, index) => withoutAddedNulls(item, value[index]));
  if (!isObject(restored) || !isObject(value)) return restored;
  return Object.fromEntries(
    Object.entries(restored).flatMap(([key, item]) =>
      item === null && !Object.hasOwn(value, key) ? [] : [[key, withoutAddedNulls(item, value[key])]],
    ),
  );
}

/** `value` as the model sends it for the normalized schema, and whether writing it dropped something. */
function asModelSends(value: unknown, out: Schema, encoding: Encoding, profile: Profile): { sent: unknown; lossy: boolean } {
  const state = { lossy: false };
  const sent =
    encoding.wrapped === undefined
      ? encode(value, out, out, profile, encoding, state)
      : encode({ [encoding.wrapped]: value }, out, out, profile, encoding, state);
  return { sent, lossy: state.lossy };
}

/**
 * Gemini reads `nullable: true` as "may be null", enum or not; Ajv follows OpenAPI 3.0.3, where
 * an enum must list null too.
 */
function asGeminiReads(schema: Schema): Schema {
  return mapSchemas(schema, (node) =>
    node.nullable === true && Array.isArray(node.enum) && !node.enum.includes(null) ? { ...node, enum: [...node.enum, null] } : node,
  );
}

const compiled = new WeakMap<Schema, (value: unknown) => boolean>();

function validator(schema: Schema): (value: unknown) => boolean {
  const known = compiled.get(schema);
  if (known !== undefined) return known;
  // What restoreArguments checks: all of the schema that compiles (a lookahead pattern is not checked).
  const { validate } = validatorFor(schema);
  const check = (value: unknown) => validate(value) as boolean;
  compiled.set(schema, check);
  return check;
}

/** A validator for a union member, whose references resolve against the whole schema. */
const members = new WeakMap<object, (value: unknown) => boolean>();
function memberValidator(member: unknown, root: Schema): (value: unknown) => boolean {
  if (!isObject(member)) return () => member !== false;
  let check = members.get(member);
  if (check === undefined) {
    // The member in the schema's own dialect, its references resolving against the schema's definitions.
    const context = Object.fromEntries(Object.entries(root).filter(([key]) => ["$schema", "$defs", "definitions"].includes(key)));
    check = validator({ ...context, ...member });
    members.set(member, check);
  }
  return check;
}

/**
 * `value` as a caller sends it under the profile's documented conventions, led by the normalized
 * schema: strict modes send null for an omitted property and only declared properties (objects
 * are closed); Gemini's OpenAPI subset sends enum values as strings; a JSON-text node gets the
 * value's JSON.
 */
function encode(value: unknown, node: unknown, root: Schema, profile: Profile, encoding: Encoding, state: { lossy: boolean }): unknown {
  const schema = followRefs(root, node);
  if (typeof schema !== "object" || schema === null) return value;
  const s = schema as Schema;
  if (encoding.jsonText.has(s)) return value === null && (s.nullable === true || Array.isArray(s.type)) ? null : JSON.stringify(value);
  const stringEnums = profile === "gemini" || profile === "portable";
  if (value === null) return stringEnums && Array.isArray(s.enum) && s.enum.includes("null") ? "null" : value;
  if (Array.isArray(s.anyOf)) {
    for (const member of s.anyOf) {
      const sent = encode(value, member, root, profile, encoding, state);
      if (memberValidator(member, root)(sent)) return sent;
    }
    return value;
  }
  if (Array.isArray(s.enum)) return stringEnums && typeof value !== "string" ? JSON.stringify(value) : value;
  if (Array.isArray(value))
    return s.items === undefined ? value : value.map((item) => encode(item, s.items, root, profile, encoding, state));
  if (typeof value === "object" && isObject(s.properties)) {
    const properties = s.properties;
    const strict = profile === "openai-strict" || profile === "anthropic-strict";
    const record = value as Record<string, unknown>;
    const out: Record<string, unknown> = strict ? {} : { ...record };
    for (const [name, sub] of Object.entries(properties)) {
      if (Object.hasOwn(record, name)) out[name] = encode(record[name], sub, root, profile, encoding, state);
      else if (profile === "openai-strict") out[name] = null;
    }
    if (strict && Object.keys(record).some((name) => !Object.hasOwn(properties, name))) state.lossy = true;
    return out;
  }
  return value;
}
