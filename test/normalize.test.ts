import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { Ajv2020 } from "ajv/dist/2020.js";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { describe, expect, it } from "vitest";
import { normalizeSchema, normalizeSchemaWithNotes, PROFILES } from "../src/normalize/normalize.js";
import {
  arrayItems,
  constToEnum,
  dropKeywords,
  enumsToStrings,
  inlineRefs,
  mergeAllOf,
  nullUnions,
  objectProperties,
  objectRoot,
  oneOfToAnyOf,
  strictObjects,
  tuplesToArrays,
  type Schema,
} from "../src/normalize/passes.js";
import { fixtureCommand, runCli } from "./helpers/cli.js";
import { samples } from "./helpers/samples.js";

const quiet = { note: () => {} };

/** The OpenWeather shapes from the schema-issue report (seed 004). */
const openWeather: Schema = {
  type: "object",
  properties: {
    city: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "City" },
    coordinate: { anyOf: [{ type: "array", items: { type: "number" } }, { type: "null" }], default: null },
  },
};

describe("golden: the seed's OpenWeather cases", () => {
  it("gemini: anyOf with null becomes nullable, default kept, title moved into description", () => {
    expect(normalizeSchema(openWeather, { profile: "gemini" })).toEqual({
      type: "object",
      properties: {
        city: { type: "string", nullable: true, default: null, description: "City" },
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
    const tree: Schema = { $defs: { Node: { type: "object", properties: { kids: { type: "array", items: { $ref: "#/$defs/Node" } } } } }, $ref: "#/$defs/Node" };
    const kept = inlineRefs(tree, { cycles: "keep", depth: 3 }, quiet);
    expect(kept).toMatchObject({ type: "object", properties: { kids: { items: { $ref: "#/$defs/Node" } } }, $defs: { Node: { type: "object" } } });
    const notes: string[] = [];
    const cut = inlineRefs(tree, { cycles: "cut", depth: 2 }, { note: (_pointer, message) => notes.push(message) });
    expect(JSON.stringify(cut)).not.toContain("$ref");
    expect(notes[0]).toMatch(/recursion through #\/\$defs\/Node cut after 2 levels/);
    expect(inlineRefs({ properties: { a: { $ref: "https://x/y.json" } } }, { cycles: "keep", depth: 3 }, quiet)).toEqual({ properties: { a: { $ref: "https://x/y.json" } } });
  });

  it("tuples become arrays with their length and positions described", () => {
    const out = tuplesToArrays({ type: "array", prefixItems: [{ type: "number" }, { type: "string" }], items: false }, quiet);
    expect(out).toMatchObject({ type: "array", items: { anyOf: [{ type: "number" }, { type: "string" }] }, minItems: 2, maxItems: 2 });
    expect(out.description).toBe("Positions: 0: number; 1: string.");
  });

  it("dropKeywords moves meaning into the description", () => {
    const out = dropKeywords({ type: "string", format: "uri", examples: ["https://a"], description: "Home page" }, new Set(["examples"]), new Set(["date-time"]));
    expect(out).toEqual({ type: "string", description: 'Home page format: uri; Examples: "https://a"' });
  });

  it.each([
    ["oneOfToAnyOf", (schema: Schema) => oneOfToAnyOf(schema, quiet), { properties: { a: { oneOf: [{ type: "string" }, { type: "integer" }] } } }, { properties: { a: { anyOf: [{ type: "string" }, { type: "integer" }] } } }],
    [
      "mergeAllOf",
      (schema: Schema) => mergeAllOf(schema, quiet),
      { allOf: [{ type: "object", properties: { a: { type: "string" } }, required: ["a"] }, { properties: { b: { type: "integer" } }, required: ["b"] }], description: "d" },
      { description: "d", type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, required: ["a", "b"] },
    ],
    ["constToEnum", constToEnum, { properties: { v: { const: 2, description: "x" } } }, { properties: { v: { description: "x", enum: [2] } } }],
    ["enumsToStrings", (schema: Schema) => enumsToStrings(schema, quiet), { properties: { n: { enum: [1, "a", null] } } }, { properties: { n: { type: "string", enum: ["1", "a", "null"] } } }],
    ["arrayItems", arrayItems, { properties: { l: { type: "array" } } }, { properties: { l: { type: "array", items: {} } } }],
    ["objectProperties", objectProperties, { properties: { o: { type: "object" } } }, { properties: { o: { type: "object", properties: {} } } }],
    ["objectRoot", (schema: Schema) => objectRoot(schema, quiet), { type: "object" }, { type: "object", properties: {} }],
    ["nullUnions (type-array)", (schema: Schema) => nullUnions(schema, "type-array"), { properties: { e: { anyOf: [{ enum: ["a"] }, { type: "null" }], description: "kept" } } }, { properties: { e: { enum: ["a", null], description: "kept" } } }],
  ])("%s", (_name, pass, given, want) => {
    const input = structuredClone(given);
    expect(pass(given as Schema)).toEqual(want);
    // Pure: the input is not touched.
    expect(given).toEqual(input);
  });

  it("strictObjects makes optional properties required and nullable", () => {
    expect(strictObjects({ type: "object", properties: { a: { type: "string" }, b: { type: "integer" } }, required: ["a"] }, quiet)).toEqual({
      type: "object",
      properties: { a: { type: "string" }, b: { type: ["integer", "null"] } },
      required: ["a", "b"],
      additionalProperties: false,
    });
  });
});

async function corpus(): Promise<Schema[]> {
  const schemas = JSON.parse(await readFile(new URL("./corpus/schemas.json", import.meta.url), "utf8")) as Record<string, Schema>;
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
      objectProperties(arrayItems(constToEnum(mergeAllOf(nullUnions(inlineRefs(schema, { cycles: "keep", depth: 3 }, quiet), "type-array"), quiet))));
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

describe("pmcp schema normalize", () => {
  it("normalizes a real export and reports what changed meaning, per server, tool and pointer", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-normalize-"));
    const exported = await runCli(["schema", "export", "--stdio", fixtureCommand("listing-server.mjs"), "--id", "listing", "-o", join(dir, "b.json"), "--quiet"]);
    expect(exported.code).toBe(0);
    const result = await runCli(["schema", "normalize", "--profile", "openai-strict", join(dir, "b.json"), "-o", join(dir, "n.json")]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/warning: server "listing" tool "class" at \/inputSchema\/properties\/filters\/items: optional properties value became required and nullable/);
    const bundle = JSON.parse(await readFile(join(dir, "n.json"), "utf8"));
    expect(JSON.stringify(bundle)).not.toContain('"$defs"');
    const wrong = await runCli(["schema", "normalize", "--profile", "bogus", join(dir, "b.json")]);
    expect(wrong.code).toBe(2);
  });
});
