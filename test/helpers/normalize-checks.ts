import fc from "fast-check";
import { expect } from "vitest";
import { isObject } from "../../src/json-schema/pointer.js";
import { followRefs } from "../../src/json-schema/refs.js";
import { mapSchemas } from "../../src/json-schema/traverse.js";
import { compileSchema } from "../../src/json-schema/validator.js";
import { lintSchema } from "../../src/lint/lint.js";
import { normalizeSchemaWithNotes, type Profile } from "../../src/normalize/normalize.js";
import type { Schema } from "../../src/normalize/passes.js";
import { samples } from "./samples.js";

/** Rules no rewrite can satisfy, by profile: lint reports them as not fixable. */
export const UNFIXABLE: Partial<Record<Profile, string[]>> = {
  // An object without properties has no portable form (Gemini rejects an empty "properties", OpenAI a missing one).
  portable: ["empty-object"],
};

export const errorRules = (schema: unknown, profile: Profile) =>
  [...new Set(lintSchema(schema, profile).flatMap((finding) => (finding.severity === "error" ? [finding.rule] : [])))].sort();

/** Whether Ajv compiles `schema` and the sampler can build instances for it (it knows no lookahead in patterns). */
export function sampleable(schema: Schema): boolean {
  try {
    validator(schema);
    samples(schema);
    return true;
  } catch {
    return false;
  }
}

/**
 * Samples instances of `schema` and checks that each valid one, encoded as the profile documents,
 * is valid for the normalized schema; returns how many were checked.
 */
export function checkWidening(schema: Schema, profile: Profile, numRuns: number): number {
  const { schema: out } = normalizeSchemaWithNotes(schema, { profile });
  const valid = validator(schema);
  const validOut = validator(profile === "gemini" || profile === "portable" ? asGeminiReads(out) : out);
  let checked = 0;
  fc.assert(
    fc.property(samples(schema), (value) => {
      // Tool arguments and structured results are objects (MCP), whatever the root schema admits.
      if (!isObject(value) || !valid(value)) return true;
      checked++;
      const sent = encode(value, out, out, profile);
      expect(validOut(sent), `${profile} ${JSON.stringify(schema).slice(0, 300)}\n${JSON.stringify(value)}`).toBe(true);
    }),
    { numRuns, seed: 11 },
  );
  return checked;
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
  const validate = compileSchema(schema);
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
 * are closed); Gemini's OpenAPI subset sends enum values as strings.
 */
function encode(value: unknown, node: unknown, root: Schema, profile: Profile): unknown {
  const schema = followRefs(root, node);
  if (typeof schema !== "object" || schema === null) return value;
  const s = schema as Schema;
  const stringEnums = profile === "gemini" || profile === "portable";
  if (value === null) return stringEnums && Array.isArray(s.enum) && s.enum.includes("null") ? "null" : value;
  if (Array.isArray(s.anyOf)) {
    for (const member of s.anyOf) {
      const sent = encode(value, member, root, profile);
      if (memberValidator(member, root)(sent)) return sent;
    }
    return value;
  }
  if (Array.isArray(s.enum)) return stringEnums && typeof value !== "string" ? JSON.stringify(value) : value;
  if (Array.isArray(value)) return s.items === undefined ? value : value.map((item) => encode(item, s.items, root, profile));
  if (typeof value === "object" && isObject(s.properties)) {
    const properties = s.properties;
    const strict = profile === "openai-strict" || profile === "anthropic-strict";
    const record = value as Record<string, unknown>;
    const out: Record<string, unknown> = strict ? {} : { ...record };
    for (const [name, sub] of Object.entries(properties)) {
      if (name in record) out[name] = encode(record[name], sub, root, profile);
      else if (strict) out[name] = null;
    }
    return out;
  }
  return value;
}
