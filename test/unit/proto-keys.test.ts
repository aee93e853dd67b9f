import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { observationPath } from "@pmcp-codegen/runtime";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "../../src/bundle/types.js";
import { inferSchema } from "../../src/infer/infer-schema.js";
import { inferBundle } from "../../src/learn/observation-logs.js";
import { normalizeSchema, PROFILES } from "../../src/normalize/normalize.js";
import { toolsFromSource } from "../../src/tools/from-source.js";
import { outputDir } from "../helpers/typescript.js";

/** A property named "__proto__" is data: JSON.parse makes it an own key, and so must every step after. */
const PROTO = "__proto__";

let dir: string;

beforeAll(async () => {
  dir = await outputDir("proto-keys");
});

/** Every object schema in `schema` whose `required` names "__proto__" also declares it as an own property. */
function protoDeclaredWhereRequired(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(protoDeclaredWhereRequired);
  if (typeof schema !== "object" || schema === null) return true;
  const node = schema as Record<string, unknown>;
  const properties = node.properties;
  if (Array.isArray(node.required) && node.required.includes(PROTO)) {
    if (typeof properties !== "object" || properties === null || !Object.hasOwn(properties, PROTO)) return false;
  }
  return Object.values(node).every(protoDeclaredWhereRequired);
}

describe("normalize keeps a __proto__ property and its required entry", () => {
  const tree = JSON.parse(`{
    "type": "object",
    "properties": { "root": { "$ref": "#/$defs/__proto__" } },
    "required": ["root"],
    "$defs": {
      "__proto__": {
        "type": "object",
        "properties": { "__proto__": { "type": "string" }, "children": { "type": "array", "items": { "$ref": "#/$defs/__proto__" } } },
        "required": ["__proto__"]
      }
    }
  }`);
  const merged = JSON.parse(`{
    "anyOf": [
      { "type": "object", "properties": { "__proto__": { "type": "string" } }, "required": ["__proto__"], "additionalProperties": false },
      { "type": "object", "properties": { "__proto__": { "type": "string" }, "b": { "type": "string" } }, "required": ["__proto__"] }
    ]
  }`);
  const allOf = JSON.parse(`{
    "type": "object",
    "allOf": [{ "properties": { "__proto__": { "type": "string", "format": "email" } }, "required": ["__proto__"] }, { "properties": { "c": { "type": "string" } } }]
  }`);

  it.each(PROFILES)("%s", (profile) => {
    for (const schema of [tree, merged, allOf]) expect(protoDeclaredWhereRequired(normalizeSchema(schema, { profile }))).toBe(true);
  });

  it("a recursive definition named __proto__ is kept under that name where the provider takes references", () => {
    const normalized = normalizeSchema(tree, { profile: "anthropic" });
    expect(Object.keys(normalized.$defs as object)).toEqual([PROTO]);
    expect(normalized.properties).toEqual({ root: { $ref: "#/$defs/__proto__" } });
  });

  it("a root union merges each member's own __proto__ property, never Object.prototype", () => {
    const open = JSON.parse(`{
      "anyOf": [
        { "type": "object", "properties": { "__proto__": { "type": "string" } }, "additionalProperties": false },
        { "type": "object", "properties": { "b": { "type": "string" } } }
      ]
    }`);
    // The open member does not declare it, so it may hold anything there.
    expect(JSON.stringify(normalizeSchema(open, { profile: "anthropic" }).properties)).toBe('{"__proto__":{},"b":{"type":"string"}}');
    const both = normalizeSchema(merged, { profile: "anthropic" });
    expect(JSON.stringify(both.properties)).toBe('{"__proto__":{"type":"string"},"b":{"type":"string"}}');
    expect(both.required).toEqual([PROTO]);
  });
});

describe("tools from-source keeps a __proto__ property and its required entry", () => {
  it("in the parameter type and the result type", async () => {
    const folder = join(dir, "from-source");
    await mkdir(folder, { recursive: true });
    const file = join(folder, "records.ts");
    await writeFile(
      file,
      [
        "/** Finds a record. */",
        'export async function findRecord(input: { "__proto__": string; name: string; tags?: { "__proto__"?: number } }): Promise<{ "__proto__": string }> {',
        '  return { ["__proto__"]: input.name };',
        "}",
      ].join("\n"),
    );
    const { manifest, problems } = toolsFromSource(file);
    expect(problems).toEqual([]);
    const [tool] = manifest.tools;
    const properties = JSON.parse('{ "__proto__": { "type": "string" } }');
    expect(JSON.stringify(tool?.inputSchema)).toBe(
      JSON.stringify({
        type: "object",
        properties: JSON.parse(
          '{ "__proto__": { "type": "string" }, "name": { "type": "string" }, "tags": { "type": "object", "properties": { "__proto__": { "type": "number" } }, "additionalProperties": false } }',
        ),
        required: [PROTO, "name"],
        additionalProperties: false,
      }),
    );
    expect(JSON.stringify(tool?.outputSchema)).toBe(
      JSON.stringify({ type: "object", properties, required: [PROTO], additionalProperties: false }),
    );
  }, 120_000);
});

describe("the bundle and inference keep __proto__ keys", () => {
  it("an inferred schema has each __proto__ property observed, with its schema and its required entry", async () => {
    const values = JSON.parse(
      '[{"__proto__":"a","n":1,"o":{"__proto__":{"deep":true}}},{"__proto__":"b","n":2,"o":{"__proto__":{"deep":false}}}]',
    );
    expect(JSON.stringify(await inferSchema(values))).toBe(
      JSON.stringify({
        type: "object",
        properties: JSON.parse(
          '{"__proto__":{"type":"string"},"n":{"type":"integer"},"o":{"type":"object","properties":{"__proto__":{"type":"object","properties":{"deep":{"type":"boolean"}},"required":["deep"]}},"required":["__proto__"]}}',
        ),
        required: ["n", "o", PROTO],
      }),
    );
  }, 120_000);

  it("content block types counted per type, __proto__ among them", async () => {
    const logs = join(dir, "logs");
    const path = observationPath(logs, "shop", "get");
    await mkdir(dirname(path), { recursive: true });
    const header = { format: "pmcp-observations/1", server: "shop", tool: "get", seen: 2, firstSeen: "a", lastSeen: "b", redacted: false };
    const samples = [header, { at: "a", content: [PROTO, "text"] }, { at: "b", content: [PROTO] }];
    await writeFile(path, samples.map((line) => JSON.stringify(line)).join("\n"));
    const bundle: Bundle = { version: "1.0", servers: [{ id: "shop", tools: [{ name: "get", inputSchema: { type: "object" } }] }] };
    const inferred = await inferBundle(bundle, logs);
    const content = inferred.bundle.servers[0]?.inferred?.[0]?.content;
    expect(JSON.stringify(content)).toBe('{"__proto__":2,"text":1}');
  }, 60_000);
});
