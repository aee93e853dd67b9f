import { readFile } from "node:fs/promises";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inlineRefs } from "../../src/json-schema/inline-refs.js";
import { collectEncoding } from "../../src/normalize/encoding.js";
import { normalizeSchema, normalizeSchemaWithNotes } from "../../src/normalize/normalize.js";
import {
  arrayItems,
  constToEnum,
  draft07Tuples,
  dropKeywords,
  emptyPropertiesRemoved,
  enumsToStrings,
  mergeAllOf,
  nullUnions,
  objectProperties,
  objectRoot,
  objectTypes,
  oneOfToAnyOf,
  type PassContext,
  type Schema,
  strictObjects,
  tuplesToArrays,
} from "../../src/normalize/passes.js";
import { samples } from "../helpers/samples.js";

const quiet = { note: () => {} };

/** The OpenWeather shapes of the weather example (`city` and `coordinate`, each an anyOf with null). */
const openWeather: Schema = {
  type: "object",
  properties: {
    city: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "City" },
    coordinate: { anyOf: [{ type: "array", items: { type: "number" } }, { type: "null" }], default: null },
  },
};

describe("golden: the weather example's OpenWeather cases", () => {
  // `title` is a field of Gemini's Schema (GAPI v1beta reference), so it stays rather than becoming the description.
  it("gemini: anyOf with null becomes nullable, default and title kept", () => {
    expect(normalizeSchema(openWeather, { profile: "gemini" })).toEqual({
      type: "object",
      properties: {
        city: { type: "string", nullable: true, default: null, title: "City" },
        coordinate: { type: "array", items: { type: "number" }, nullable: true, default: null },
      },
    });
  });

  it("openai-strict: every property required, nullable as type arrays, objects closed", () => {
    expect(normalizeSchema(openWeather, { profile: "openai-strict" })).toEqual({
      type: "object",
      properties: {
        city: { type: ["string", "null"], title: "City" },
        coordinate: { type: ["array", "null"], items: { type: "number" } },
      },
      required: ["city", "coordinate"],
      additionalProperties: false,
    });
  });
});

describe("passes", () => {
  it("inlineRefs keeps recursion where allowed and cuts it elsewhere, saying so", () => {
    const tree: Schema = {
      $defs: { Node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/Node" } } } } },
      $ref: "#/$defs/Node",
    };
    const kept = inlineRefs(tree, { cycles: "keep", depth: 3 }, quiet);
    expect(kept).toMatchObject({
      type: "object",
      properties: { kids: { items: { $ref: "#/$defs/Node" } } },
      $defs: { Node: { type: "object" } },
    });
    const notes: string[] = [];
    const cut = inlineRefs(tree, { cycles: "cut", depth: 2 }, { note: (_pointer, message) => notes.push(message) });
    expect(JSON.stringify(cut)).not.toContain("$ref");
    expect(notes[0]).toMatch(/recursion through #\/\$defs\/Node cut after 2 levels/);
    expect(inlineRefs({ properties: { a: { $ref: "https://x/y.json" } } }, { cycles: "keep", depth: 3 }, quiet)).toEqual({
      properties: { a: { $ref: "https://x/y.json" } },
    });
  });

  it("inlineRefs unrolls a recursive definition once on each path, then refers to it by name", () => {
    const list: Schema = {
      type: "object",
      properties: { head: { $ref: "#/definitions/Cell" }, spare: { $ref: "#/definitions/Cell" } },
      definitions: { Cell: { type: "object", properties: { next: { $ref: "#/definitions/Cell" }, value: { type: "integer" } } } },
    };
    const cell = { type: "object", properties: { next: { $ref: "#/$defs/Cell" }, value: { type: "integer" } } };
    expect(inlineRefs(list, { cycles: "unroll", depth: 1 }, quiet)).toEqual({
      type: "object",
      properties: { head: cell, spare: cell },
      $defs: { Cell: cell },
    });
  });

  it("tuples become arrays with their length and positions described", () => {
    const out = tuplesToArrays({ type: "array", prefixItems: [{ type: "number" }, { type: "string" }], items: false }, quiet);
    expect(out).toEqual({
      type: "array",
      items: { anyOf: [{ type: "number" }, { type: "string" }] },
      maxItems: 2,
      description: "Positions: 0: number; 1: string.",
    });
    // An open tuple admits anything after its positions.
    expect(tuplesToArrays({ type: "array", prefixItems: [{ type: "number" }] }, quiet)).toMatchObject({ items: {} });
  });

  it("dropKeywords moves meaning into the description", () => {
    const out = dropKeywords(
      { type: "string", format: "uri", examples: ["https://a"], description: "Home page" },
      (keyword) => keyword === "examples",
      new Set(["date-time"]),
      quiet,
    );
    expect(out).toEqual({ type: "string", description: 'Home page format: uri; Examples: "https://a"' });
  });

  it.each([
    [
      "oneOfToAnyOf",
      (schema: Schema) => oneOfToAnyOf(schema, quiet),
      { properties: { a: { oneOf: [{ type: "string" }, { type: "integer" }] } } },
      { properties: { a: { anyOf: [{ type: "string" }, { type: "integer" }] } } },
    ],
    [
      "mergeAllOf",
      (schema: Schema) => mergeAllOf(schema, quiet),
      {
        allOf: [
          { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
          { properties: { b: { type: "integer" } }, required: ["b"] },
        ],
        description: "d",
      },
      { description: "d", type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, required: ["a", "b"] },
    ],
    [
      "constToEnum",
      constToEnum,
      { properties: { v: { const: 2, description: "x" } } },
      { properties: { v: { description: "x", enum: [2] } } },
    ],
    [
      "enumsToStrings",
      (schema: Schema) => enumsToStrings(schema, quiet),
      { properties: { n: { enum: [1, "a", null] } } },
      { properties: { n: { type: "string", enum: ["1", "a", "null"] } } },
    ],
    ["arrayItems", arrayItems, { properties: { l: { type: "array" } } }, { properties: { l: { type: "array", items: {} } } }],
    [
      "objectProperties",
      objectProperties,
      { properties: { o: { type: "object" } } },
      { properties: { o: { type: "object", properties: {} } } },
    ],
    ["objectRoot", (schema: Schema) => objectRoot(schema), { type: "object" }, { type: "object", properties: {} }],
    [
      "nullUnions (type-array)",
      (schema: Schema) => nullUnions(schema, "type-array"),
      { properties: { e: { anyOf: [{ enum: ["a"] }, { type: "null" }], description: "kept" } } },
      { properties: { e: { enum: ["a", null], description: "kept" } } },
    ],
  ])("%s", (_name, pass, given, want) => {
    const input = structuredClone(given);
    // The marks restoring reads are kept apart from the schema, as normalizeSchemaWithNotes does.
    expect(collectEncoding(pass(given as Schema), undefined).schema).toEqual(want);
    // Pure: the input is not touched.
    expect(given).toEqual(input);
  });

  it("strictObjects makes optional properties required and nullable", () => {
    const { schema, encoding } = collectEncoding(
      strictObjects({ type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, required: ["a"] }, quiet),
      undefined,
    );
    expect(schema).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: ["integer", "null"] } },
      required: ["a", "b"],
      additionalProperties: false,
    });
    // Where restoring may read a null as "not given".
    expect([...encoding.madeRequired]).toEqual([[schema, new Set(["b"])]]);
  });
});

/** Notes as "pointer: message" lines, from a pass or a profile. */
function recorder() {
  const notes: string[] = [];
  return { notes, context: { note: (pointer: string, message: string) => notes.push(`${pointer || "/"}: ${message}`) } };
}

describe("every subschema, every pointer escaped", () => {
  it.each([
    [
      "oneOfToAnyOf",
      (schema: Schema, context: PassContext) => oneOfToAnyOf(schema, context),
      { properties: { "a/b": { oneOf: [{ type: "string" }] }, "c~d": { oneOf: [{ type: "integer" }] } } },
      [
        "/properties/a~1b: oneOf became anyOf (an instance matching several members is now also valid)",
        "/properties/c~0d: oneOf became anyOf (an instance matching several members is now also valid)",
      ],
    ],
    [
      "inlineRefs",
      (schema: Schema, context: PassContext) => inlineRefs(schema, { cycles: "keep", depth: 3 }, context),
      { properties: { "a/b": { $ref: "#/$defs/Missing" } } },
      ['/properties/a~1b: dangling $ref "#/$defs/Missing" replaced by an unconstrained schema'],
    ],
    [
      "dropKeywords",
      (schema: Schema, context: PassContext) => dropKeywords(schema, (keyword) => keyword === "not", undefined, context),
      { properties: { "a/b": { not: { type: "null" } } } },
      ["/properties/a~1b/not: not is not supported here and was dropped; the description states it"],
    ],
  ])("%s notes at escaped pointers", (_name, pass, given, want) => {
    const { notes, context } = recorder();
    pass(given as Schema, context);
    expect(notes).toEqual(want);
  });

  it("passes reach dependentSchemas, contentSchema and draft-07 dependencies, and leave name lists alone", () => {
    const given: Schema = {
      type: "object",
      properties: { a: { type: "string" } },
      dependentSchemas: { a: { properties: { list: { type: "array" } } } },
      dependencies: { a: ["b"], b: { properties: { list: { type: "array" } } } },
      contentSchema: { type: "array" },
    };
    expect(arrayItems(given)).toEqual({
      type: "object",
      properties: { a: { type: "string" } },
      dependentSchemas: { a: { properties: { list: { type: "array", items: {} } } } },
      dependencies: { a: ["b"], b: { properties: { list: { type: "array", items: {} } } } },
      contentSchema: { type: "array", items: {} },
    });
  });

  it("anthropic rewrites a draft-07 tuple inside dependencies too", () => {
    const given: Schema = {
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      properties: { a: { type: "string" } },
      dependencies: { a: { properties: { at: { type: "array", items: [{ type: "number" }, { type: "number" }] } } } },
    };
    expect(normalizeSchema(given, { profile: "anthropic" })).toEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: { a: { type: "string" } },
      dependencies: { a: { properties: { at: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }] } } } },
    });
  });

  it("inlineRefs follows percent-encoded refs and anchors, which the dropped $defs would leave dangling", () => {
    const given: Schema = {
      $defs: { "a b": { type: "string" }, Named: { $anchor: "named", type: "integer" } },
      properties: { s: { $ref: "#/$defs/a%20b" }, n: { $ref: "#named", description: "count" } },
    };
    const { notes, context } = recorder();
    expect(inlineRefs(given, { cycles: "keep", depth: 3 }, context)).toEqual({
      properties: { s: { type: "string" }, n: { $anchor: "named", type: "integer", description: "count" } },
    });
    expect(notes).toEqual([]);
  });
});

describe("verified provider facts (see shared/reference/mcp-and-provider-facts.md)", () => {
  it("gemini keeps only the fields of its Schema, title included, and describes dropped constraints", () => {
    const { notes, context } = recorder();
    const given: Schema = {
      type: "object",
      propertyOrdering: ["tags"],
      properties: {
        tags: {
          type: "array",
          items: { type: "string", "x-ui": "chips" },
          uniqueItems: true,
          readOnly: true,
          title: "Tags",
          description: "Labels",
          example: ["a"],
        },
        code: { type: "string", not: { enum: ["x"] }, minLength: 1 },
      },
    };
    expect(normalizeSchema(given, { profile: "gemini" })).toEqual({
      type: "object",
      propertyOrdering: ["tags"],
      properties: {
        tags: { type: "array", items: { type: "string" }, title: "Tags", description: "Labels uniqueItems: true", example: ["a"] },
        code: { type: "string", minLength: 1, description: 'not: {"enum":["x"]}' },
      },
    });
    dropKeywords(given, (keyword) => !["type", "properties"].includes(keyword), undefined, context);
    expect(notes).toEqual([
      "/properties/tags/uniqueItems: uniqueItems is not supported here and was dropped; the description states it",
      "/properties/code/not: not is not supported here and was dropped; the description states it",
      "/properties/code/minLength: minLength is not supported here and was dropped; the description states it",
    ]);
    // Only Schema fields: nothing to do.
    const accepted: Schema = {
      type: "object",
      title: "T",
      properties: { n: { type: "integer", minimum: 0, maximum: 9, nullable: true, default: 1 } },
      required: ["n"],
    };
    expect(normalizeSchema(accepted, { profile: "gemini" })).toEqual(accepted);
  });

  it("gemini cannot close an object: a dropped additionalProperties is noted and described, and a record is JSON text", () => {
    const { schema, notes, encoding } = normalizeSchemaWithNotes(
      { type: "object", properties: { tags: { type: "object", additionalProperties: { type: "string" } } }, additionalProperties: false },
      { profile: "gemini" },
    );
    const tags = { type: "string", description: 'Schema: {"type":"object","additionalProperties":{"type":"string"}} (JSON text)' };
    expect(schema).toEqual({ type: "object", properties: { tags }, description: "additionalProperties: false" });
    expect(notes.map((note) => [note.pointer, note.kind])).toEqual([
      ["/properties/tags", "json-text"],
      ["/additionalProperties", "dropped-keyword"],
    ]);
    expect([...encoding.jsonText]).toEqual([tags]);
    expect([...encoding.jsonText][0]).toBe((schema.properties as Record<string, unknown>).tags);
  });

  it("gemini types objects that have properties or required (naming what is required), and leaves typed and propertyless nodes alone", () => {
    expect(
      objectTypes({
        properties: {
          o: { properties: { x: { type: "string" } } },
          r: { required: ["a"] },
          s: { type: "string" },
          any: { description: "anything" },
        },
      }),
    ).toEqual({
      type: "object",
      properties: {
        o: { type: "object", properties: { x: { type: "string" } } },
        r: { type: "object", required: ["a"], properties: { a: {} } },
        s: { type: "string" },
        any: { description: "anything" },
      },
    });
    expect(
      normalizeSchema({ type: "object", properties: { o: { properties: { x: { type: "string" } } } } }, { profile: "gemini" }),
    ).toEqual({
      type: "object",
      properties: { o: { type: "object", properties: { x: { type: "string" } } } },
    });
  });

  it("gemini never sends an empty properties, and says so; openai and portable still add it", () => {
    const { notes, context } = recorder();
    expect(
      emptyPropertiesRemoved(
        {
          type: "object",
          properties: { map: { type: "object", properties: {} }, o: { type: "object", properties: { a: { type: "string" } } } },
        },
        context,
      ),
    ).toEqual({
      type: "object",
      properties: { map: { type: "object" }, o: { type: "object", properties: { a: { type: "string" } } } },
    });
    expect(notes).toEqual([
      '/properties/map: an object without properties: Gemini rejects an empty "properties" and may reject a missing one',
    ]);
    const none = normalizeSchemaWithNotes({ type: "object", properties: {} }, { profile: "gemini" });
    expect(none.schema).toEqual({ type: "object" });
    expect(none.notes.map((note) => note.message)).toEqual([
      'no parameters: Gemini rejects an empty "properties"; declare the tool without "parameters"',
    ]);
    expect(normalizeSchema({ type: "object" }, { profile: "gemini" })).toEqual({ type: "object" });
    expect(normalizeSchema({ type: "object" }, { profile: "openai" })).toEqual({ type: "object", properties: {} });
    expect(normalizeSchema({ type: "object" }, { profile: "portable" })).toEqual({ type: "object", properties: {} });
  });

  it("openai-strict drops the keywords its SDK rejects, noting each and describing it, and keeps the supported ones", () => {
    const given: Schema = {
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string", pattern: "^[a-z]+$" }, uniqueItems: true, minItems: 1, maxItems: 5 },
        n: { type: "integer", not: { const: 0 }, minimum: -5, exclusiveMaximum: 5, multipleOf: 1 },
        m: { type: "object", propertyNames: { pattern: "^k" }, patternProperties: { "^k": { type: "string" } } },
        at: { type: "string", format: "date-time" },
      },
      required: ["tags", "n", "m", "at"],
      dependentRequired: { n: ["m"] },
    };
    const { schema, notes } = normalizeSchemaWithNotes(given, { profile: "openai-strict" });
    expect(schema).toEqual({
      type: "object",
      properties: {
        tags: { type: "array", items: { type: "string", pattern: "^[a-z]+$" }, minItems: 1, maxItems: 5, description: "uniqueItems: true" },
        n: { type: "integer", minimum: -5, exclusiveMaximum: 5, multipleOf: 1, description: 'not: {"const":0}' },
        // A record has no strict form: JSON text, its schema quoted for the model.
        m: {
          type: "string",
          description:
            'Schema: {"type":"object","propertyNames":{"pattern":"^k"},"patternProperties":{"^k":{"type":"string"}}} (JSON text)',
        },
        at: { type: "string", format: "date-time" },
      },
      required: ["tags", "n", "m", "at"],
      additionalProperties: false,
      description: 'dependentRequired: {"n":["m"]}',
    });
    expect(notes.filter((note) => note.message.includes("not supported here")).map((note) => note.pointer)).toEqual([
      "/properties/tags/uniqueItems",
      "/properties/n/not",
      "/dependentRequired",
    ]);
  });

  it("anthropic rewrites draft-07 tuples as prefixItems, accepting the same instances, and leaves prefixItems alone", async () => {
    const schemas = JSON.parse(await readFile(new URL("../corpus/schemas.json", import.meta.url), "utf8")) as Record<string, Schema>;
    const draft07 = schemas["tuple-draft-07"] as Schema;
    const out = normalizeSchema(draft07, { profile: "anthropic" });
    expect(out.properties).toEqual({
      location: { type: "array", prefixItems: [{ type: "number" }, { type: "number" }], items: false, minItems: 2, maxItems: 2 },
      pair: { type: "array", prefixItems: [{ type: "string" }, { type: "string" }], items: { type: "integer" } },
    });
    // The result declares the dialect it is written in, so every reader takes it the same way.
    expect(draft07.$schema).toMatch(/draft-07/);
    expect(out.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    // The same instances: draft-07 reading of the original, 2020-12 reading of the result.
    const before = new Ajv({ strict: false, logger: false }).compile(draft07);
    const after = new Ajv2020({ strict: false, logger: false }).compile(out);
    fc.assert(
      fc.property(samples(draft07), (value) => before(value) === after(value)),
      { numRuns: 300, seed: 7 },
    );
    const tuple2020 = schemas["tuple-2020"] as Schema;
    expect(normalizeSchema(tuple2020, { profile: "anthropic" })).toEqual(tuple2020);
    expect(draft07Tuples({ type: "array", items: { type: "string" } })).toEqual({ type: "array", items: { type: "string" } });
  });

  it("anthropic-strict keeps minItems 0 and 1 and describes larger ones", () => {
    expect(
      normalizeSchema(
        {
          type: "object",
          properties: {
            one: { type: "array", items: { type: "string" }, minItems: 1 },
            two: { type: "array", items: { type: "string" }, minItems: 2 },
          },
          required: ["one", "two"],
        },
        { profile: "anthropic-strict" },
      ),
    ).toEqual({
      type: "object",
      properties: {
        one: { type: "array", items: { type: "string" }, minItems: 1 },
        two: { type: "array", items: { type: "string" }, description: "minItems: 2" },
      },
      required: ["one", "two"],
      additionalProperties: false,
    });
  });
});
