import { readFile } from "node:fs/promises";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isObject } from "../src/json-schema/pointer.js";
import { followRefs } from "../src/json-schema/refs.js";
import { mapSchemas, walkSchemas } from "../src/json-schema/traverse.js";
import { lintSchema } from "../src/lint/lint.js";
import { normalizeSchemaWithNotes, PROFILES, type Profile } from "../src/normalize/normalize.js";
import type { Schema } from "../src/normalize/passes.js";
import { readCorpus } from "./helpers/corpus.js";
import { mutuallyRecursive } from "./helpers/recursive-schemas.js";
import { samples } from "./helpers/samples.js";

/**
 * Shapes of real servers' schemas that normalize once failed on: Microsoft Graph's mutually
 * recursive definitions (`@softeria/ms-365-mcp-server`), Notion's nullable objects inside
 * `anyOf` branches, optional properties of nested objects, several types in one node.
 */

const SHAPES: Record<string, Schema> = {
  "mutually-recursive": mutuallyRecursive(),
  "nullable-object-in-anyof": {
    type: "object",
    properties: {
      title: {
        type: "array",
        items: {
          anyOf: [
            {
              type: "object",
              properties: {
                text: {
                  type: "object",
                  properties: { content: { type: "string" }, link: { type: ["object", "null"] } },
                  required: ["content"],
                },
              },
            },
            { type: "object", properties: { mention: { type: "object", properties: { id: { type: "string" } } } } },
          ],
        },
      },
    },
  },
  "nested-optional": {
    type: "object",
    properties: {
      filter: {
        type: "object",
        properties: { field: { type: "string" }, value: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] } },
        required: ["field"],
      },
    },
  },
  "required-only-branches": {
    type: "object",
    properties: { id: { type: "string" }, name: { type: "string" } },
    anyOf: [{ required: ["id"] }, { required: ["name"] }],
  },
  "several-types": {
    type: "object",
    properties: {
      id: { type: ["string", "integer"], minLength: 1, minimum: 0, description: "An id" },
      page: { type: ["integer", "string", "null"] },
    },
  },
  "root-union": {
    anyOf: [
      { type: "object", properties: { kind: { const: "a" }, a: { type: "string" } }, required: ["kind", "a"] },
      { type: "object", properties: { kind: { const: "b" }, b: { type: "number" } }, required: ["kind"], additionalProperties: false },
    ],
  },
};

/** Rules no rewrite can satisfy, by profile: lint reports them as not fixable. */
const UNFIXABLE: Partial<Record<Profile, string[]>> = {
  // An object without properties has no portable form (Gemini rejects an empty "properties", OpenAI a missing one).
  portable: ["empty-object"],
};

const errorRules = (schema: unknown, profile: Profile) =>
  [...new Set(lintSchema(schema, profile).flatMap((finding) => (finding.severity === "error" ? [finding.rule] : [])))].sort();

describe("normalize on the shapes of real servers", () => {
  it("inlines mutually recursive definitions within a size budget, cutting the deepest references with a note", () => {
    const schema = mutuallyRecursive();
    for (const profile of ["gemini", "portable", "anthropic-strict"] as const) {
      const { schema: out, notes } = normalizeSchemaWithNotes(schema, { profile });
      expect(JSON.stringify(out), profile).not.toMatch(/"\$ref"/);
      expect([...walkSchemas(out)].length, profile).toBeLessThanOrEqual(5_000 + [...walkSchemas(schema)].length);
      const cuts = new Set(notes.flatMap((note) => (note.kind.endsWith("-cut") ? [note.kind] : [])));
      expect(cuts.has("size-cut"), profile).toBe(true);
      expect(
        [...cuts].filter((kind) => kind !== "size-cut" && kind !== "recursion-cut"),
        profile,
      ).toEqual([]);
    }
    // Where references are understood, every definition stays, referenced by name: nothing is cut.
    const { schema: kept, notes } = normalizeSchemaWithNotes(schema, { profile: "openai-strict" });
    expect(Object.keys(kept.$defs as Schema).sort()).toEqual(Object.keys(schema.$defs as Schema).sort());
    expect(notes.filter((note) => note.kind.endsWith("-cut"))).toEqual([]);
  });

  it("leaves no error that normalize can fix, per profile", () => {
    for (const profile of PROFILES) {
      for (const [name, schema] of Object.entries(SHAPES)) {
        const { schema: out } = normalizeSchemaWithNotes(schema, { profile });
        expect(
          errorRules(out, profile).filter((rule) => !UNFIXABLE[profile]?.includes(rule)),
          `${profile} ${name}`,
        ).toEqual([]);
      }
    }
  });

  it("rejects no instance the original accepts, given the documented encodings (null for an omitted property, enum values as strings)", async () => {
    const schemas = [...Object.values(SHAPES), ...(await schemaCorpus())];
    for (const profile of PROFILES) {
      const checked = schemas.reduce((sum, schema) => sum + checkWidening(schema, profile, 25), 0);
      expect(checked, profile).toBeGreaterThan(200);
    }
  });
});

/** Whether Ajv compiles `schema` and the sampler can build instances for it (it knows no lookahead in patterns). */
function sampleable(schema: Schema): boolean {
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
function checkWidening(schema: Schema, profile: Profile, numRuns: number): number {
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

describe("normalize on the corpus of real servers", () => {
  /** Every input and output schema of the corpus, with where it is; read once. */
  let read: Promise<{ where: string; schema: Schema }[]> | undefined;
  const corpusSchemas = () => {
    read ??= readCorpus().then((corpus) =>
      corpus.servers.flatMap((server) =>
        server.tools.flatMap((tool) =>
          (["inputSchema", "outputSchema"] as const).flatMap((key) =>
            tool[key] === undefined ? [] : [{ where: `${server.id}/${tool.name} /${key}`, schema: tool[key] as Schema }],
          ),
        ),
      ),
    );
    return read;
  };

  it.each(PROFILES)("%s: after normalize, every corpus tool obeys the profile's rules", async (profile) => {
    const left = (await corpusSchemas()).flatMap(({ where, schema }) => {
      const rules = errorRules(normalizeSchemaWithNotes(schema, { profile }).schema, profile).filter(
        (rule) => !UNFIXABLE[profile]?.includes(rule),
      );
      return rules.length === 0 ? [] : [`${where}: ${rules.join(", ")}`];
    });
    expect(left).toEqual([]);
  });

  // Each profile samples one schema in SHARE (a different one each), to keep the run short.
  const SHARE = PROFILES.length * 5;
  it.each(PROFILES)("%s: no instance valid for a corpus schema is rejected after normalizing", async (profile) => {
    const offset = PROFILES.indexOf(profile);
    const chosen = (await corpusSchemas()).filter((_, index) => index % SHARE === offset);
    const checked = chosen.reduce((sum, { schema }) => sum + (sampleable(schema) ? checkWidening(schema, profile, 6) : 0), 0);
    expect(checked).toBeGreaterThan(200);
  });
});

async function schemaCorpus(): Promise<Schema[]> {
  const schemas = JSON.parse(await readFile(new URL("./corpus/schemas.json", import.meta.url), "utf8")) as Record<string, Schema>;
  // Their invalid parts (a dangling $ref, `false` members) are what other tests are about.
  return Object.entries(schemas)
    .filter(([name]) => !["unsupported-parts", "boolean-schemas"].includes(name))
    .map(([, schema]) => schema);
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
  const draft07 = typeof schema.$schema === "string" && schema.$schema.includes("draft-07");
  const ajv = draft07 ? new Ajv({ strict: false, logger: false }) : new Ajv2020({ strict: false, logger: false });
  addFormats.default(ajv);
  const validate = ajv.compile(schema);
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
