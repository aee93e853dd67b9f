import { readFile } from "node:fs/promises";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { inlineRefs } from "../../src/json-schema/inline-refs.js";
import { typeIncludes } from "../../src/json-schema/predicates.js";
import { walkSchemas } from "../../src/json-schema/traverse.js";
import { normalizeBundle } from "../../src/normalize/bundle.js";
import { normalizeSchema, normalizeSchemaWithNotes, PROFILES } from "../../src/normalize/normalize.js";
import { arrayItems, constToEnum, mergeAllOf, nullUnions, objectProperties, type Schema } from "../../src/normalize/passes.js";
import { runs } from "../helpers/full-run.js";
import { samples } from "../helpers/samples.js";

// The normalizer's properties over the hand-written corpus and generated schemas; its examples are in
// test/unit/normalize.test.ts.

const quiet = { note: () => {} };

/** The hand-written corpus, with the schemas kept out of it for codegen (they test the normalizer all the same). */
async function corpus(): Promise<Schema[]> {
  const read = async (name: string) =>
    JSON.parse(await readFile(new URL(`../corpus/${name}`, import.meta.url), "utf8")) as Record<string, Schema>;
  const schemas = { ...(await read("schemas.json")), ...(await read("codegen-only.json")) };
  return Object.entries(schemas)
    .filter(([name]) => !["unsupported-parts", "boolean-schemas"].includes(name))
    .map(([, schema]) => schema);
}

function ajvFor(schema: Schema) {
  const draft07 = typeof schema.$schema === "string" && schema.$schema.includes("draft-07");
  const ajv = draft07 ? new Ajv({ strict: false, logger: false }) : new Ajv2020({ strict: false, logger: false });
  addFormats.default(ajv);
  return (value: unknown, target: Schema) => ajv.validate(target, value);
}

describe("semantics", () => {
  it("lossless passes keep every instance valid under the original valid under the result (Ajv)", async () => {
    const lossless = (schema: Schema) =>
      objectProperties(
        arrayItems(constToEnum(mergeAllOf(nullUnions(inlineRefs(schema, { cycles: "keep", depth: 3 }, quiet), "type-array"), quiet))),
      );
    let checked = 0;
    for (const schema of await corpus()) {
      const normalized = lossless(schema);
      const validate = ajvFor(schema);
      fc.assert(
        fc.property(samples(schema), (value) => {
          if (!validate(value, schema)) return true;
          checked++;
          return validate(value, normalized);
        }),
        { numRuns: 60, seed: 7 },
      );
    }
    expect(checked).toBeGreaterThan(300);
  });

  it("normalizing twice changes nothing, for every profile", async () => {
    for (const schema of await corpus()) {
      for (const profile of PROFILES) {
        const once = normalizeSchema(schema, { profile });
        expect(normalizeSchema(once, { profile }), `${profile}`).toEqual(once);
      }
    }
  });

  it("never leaves a local $ref where the profile inlines them, and notes every change of meaning", async () => {
    for (const schema of await corpus()) {
      const { schema: out } = normalizeSchemaWithNotes(schema, { profile: "gemini" });
      expect(JSON.stringify(out)).not.toMatch(/"\$ref":"#/);
    }
  });
});

describe("openai-strict closes every object, however deep", () => {
  it("no object of a tool declared strict lacks additionalProperties: false: nested arrays, tuples, unions, references (property-based)", () => {
    const props = (schema: fc.Arbitrary<unknown>) => fc.dictionary(fc.constantFrom("a", "b", "c"), schema, { maxKeys: 3 });
    const { schema } = fc.letrec<{ schema: unknown }>((tie) => ({
      schema: fc.oneof(
        { depthSize: "small", withCrossShrink: true },
        fc.constantFrom({ type: "string" }, {}, { type: "object" }, { type: "array" }, { $ref: "#/$defs/D" }),
        fc.record(
          {
            type: fc.constant("object"),
            properties: props(tie("schema")),
            additionalProperties: fc.constantFrom(true, false, {}, { type: "string" }),
          },
          { requiredKeys: ["type", "properties"] },
        ),
        fc.record({ type: fc.constant(["object", "null"]), properties: props(tie("schema")), required: fc.constant(["a"]) }),
        fc.record({ type: fc.constant("array"), items: tie("schema") }),
        fc.record({ type: fc.constant(["array", "null"]), items: tie("schema") }),
        fc.record({
          type: fc.constant("array"),
          prefixItems: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }),
          items: fc.constantFrom(false, { type: "object", properties: { z: {} } }),
        }),
        fc.record({ anyOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
        fc.record({ oneOf: fc.array(tie("schema"), { minLength: 1, maxLength: 3 }) }),
        fc.record({ allOf: fc.array(tie("schema"), { minLength: 1, maxLength: 2 }) }),
        fc.record({ type: fc.constant("object"), additionalProperties: tie("schema") }),
      ),
    }));
    const definition = { type: "object", properties: { n: { type: "array", items: { type: "array", items: { $ref: "#/$defs/D" } } } } };
    const open = (root: unknown) =>
      [...walkSchemas(root)]
        .filter(
          ({ node }) =>
            (typeIncludes(node, "object") || (node.type === undefined && node.properties !== undefined)) &&
            node.additionalProperties !== false,
        )
        .map(({ pointer }) => pointer);
    fc.assert(
      fc.property(schema, (inner) => {
        const input = { type: "object", properties: { root: inner }, $defs: { D: definition } };
        const bundle = { version: "1.0", servers: [{ id: "s", tools: [{ name: "t", inputSchema: input }] }] };
        const { servers, outcomes } = normalizeBundle(bundle, "openai-strict");
        if (outcomes[0]?.strict) expect(open(servers[0]?.tools[0]?.inputSchema), JSON.stringify(input)).toEqual([]);
      }),
      { numRuns: runs(20_000, 1_000), seed: 20261203 },
    );
  });
});
