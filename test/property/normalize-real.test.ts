import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { walkSchemas } from "../../src/json-schema/traverse.js";
import { compileSchema } from "../../src/json-schema/validator.js";
import { normalizeSchemaWithNotes, PROFILES, type Profile } from "../../src/normalize/normalize.js";
import type { Schema } from "../../src/normalize/passes.js";
import { checkRoundTrip, checkWidening, errorRules } from "../helpers/normalize-checks.js";
import { mutuallyRecursive } from "../helpers/recursive-schemas.js";

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
        expect(errorRules(out, profile), `${profile} ${name}`).toEqual([]);
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

async function schemaCorpus(): Promise<Schema[]> {
  const schemas = JSON.parse(await readFile(new URL("../corpus/schemas.json", import.meta.url), "utf8")) as Record<string, Schema>;
  // Their invalid parts (a dangling $ref, `false` members) are what other tests are about.
  return Object.entries(schemas)
    .filter(([name]) => !["unsupported-parts", "boolean-schemas"].includes(name))
    .map(([, schema]) => schema);
}

describe("shapes outside the corpus, found by review", () => {
  const CASES: [string, Profile, Schema][] = [
    [
      "an untyped object with properties",
      "openai-strict",
      { type: "object", properties: { filter: { properties: { x: { type: "string" } } } } },
    ],
    ["an enum holding an object", "anthropic-strict", { type: "object", properties: { e: { enum: [1, "x", null, { k: 1 }] } } }],
    ["a union of null alone", "gemini", { type: "object", properties: { n: { anyOf: [{ type: "null" }] } } }],
    ["a union of null alone", "portable", { type: "object", properties: { n: { anyOf: [{ type: "null" }] } } }],
    ["optional nulls", "openai-strict", { type: "object", properties: { a: { type: "null" }, b: { const: null }, c: { enum: [null] } } }],
    [
      "an integer enum beside a string",
      "gemini",
      { type: "object", properties: { u: { anyOf: [{ type: "string" }, { type: "integer", enum: [1, 2] }] } } },
    ],
    ["enum values that read the same as strings", "gemini", { type: "object", properties: { v: { enum: [1, "1"] } } }],
  ];

  it.each(CASES)("%s (%s): obeys the profile's rules, compiles, and round-trips", (_label, profile, schema) => {
    const { schema: out } = normalizeSchemaWithNotes(schema, { profile });
    expect(errorRules(out, profile)).toEqual([]);
    expect(() => compileSchema(out)).not.toThrow();
    expect(checkRoundTrip(schema, profile, 30)).toBeGreaterThan(0);
  });
});
