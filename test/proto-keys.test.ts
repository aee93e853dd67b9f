import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "../src/bundle/types.js";
import { inferBundle } from "../src/infer/infer-bundle.js";
import { inferSchema } from "../src/infer/infer-schema.js";
import { normalizeSchema, PROFILES } from "../src/normalize/normalize.js";
import { CompositionClient, OutputValidationError, observationPath } from "../src/runtime/index.js";
import { toolsFromSource } from "../src/tools/from-source.js";
import { FIXTURES, fixtureCommand, runCli } from "./helpers/cli.js";
import { outputDir, typecheck } from "./helpers/typescript.js";

/** A property named "__proto__" is data: JSON.parse makes it an own key, and so must every step after. */
const PROTO = "__proto__";

let dir: string;
let upstream: CompositionClient;
// biome-ignore lint/suspicious/noExplicitAny: the generated class is loaded at run time; its types are checked by tsc
type Loaded = any;
interface GeneratedModule {
  ProtoClient: new (client: CompositionClient) => Loaded;
}
let generated: GeneratedModule;

beforeAll(async () => {
  dir = await outputDir("proto-keys");
  const bundle = join(dir, "bundle.json");
  const exported = await runCli(["schema", "export", "--stdio", fixtureCommand("proto-server.mjs"), "--id", "proto", "-o", bundle]);
  expect(exported.code, exported.stderr).toBe(0);
  const result = await runCli(["generate", "--schema", bundle, "-o", join(dir, "client")]);
  expect(result.code, result.stderr).toBe(0);
  generated = await import(join(dir, "client/index.ts"));
  upstream = new CompositionClient({
    servers: { proto: { command: process.execPath, args: [join(FIXTURES, "proto-server.mjs")] } },
    timeoutMs: 20_000,
  });
}, 180_000);

afterAll(async () => {
  await upstream?.close();
});

describe("a __proto__ property through export, generate and a call", () => {
  it("is a quoted property of the generated type, and the client compiles under tsc --strict", async () => {
    const module = await readFile(join(dir, "client/proto.ts"), "utf8");
    expect(module).toMatch(/export type GetRecordResult = \{\n {2}"__proto__": string;\n {2}name: string;\n\};/);
    const usage = join(dir, "usage.ts");
    await writeFile(
      usage,
      [
        'import type { z } from "zod";',
        'import type { GetRecordResult, GetRecordResultSchema } from "./client/proto.js";',
        'export const kept = (result: GetRecordResult): string => result["__proto__"] + result.name;',
        "type Parsed = z.infer<typeof GetRecordResultSchema>;",
        "export const both = (a: GetRecordResult, b: Parsed): [Parsed, GetRecordResult] => [a, b];",
      ].join("\n"),
    );
    expect(await typecheck(dir, [join(dir, "client/index.ts"), usage], "nodenext")).toBe("");
  }, 180_000);

  it("keeps a right one as an own key of the parsed value, its prototype unchanged", async () => {
    const value = await new generated.ProtoClient(upstream).getRecord({ answer: "right" });
    expect(Object.hasOwn(value, PROTO)).toBe(true);
    expect(Object.getOwnPropertyDescriptor(value, PROTO)?.value).toBe("kept");
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(JSON.stringify(value)).toBe('{"name":"a","__proto__":"kept"}');
  }, 60_000);

  it.each([
    ["missing", "expected a value, received undefined"],
    ["wrong", "expected string, received object"],
  ])(
    "rejects a %s one with OutputValidationError at its path",
    async (answer, message) => {
      const error = await new generated.ProtoClient(upstream).getRecord({ answer }).then(
        () => undefined,
        (failure: unknown) => failure,
      );
      expect(error).toBeInstanceOf(OutputValidationError);
      const issues = (error as OutputValidationError).issues.map((issue) => ({ path: issue.path, message: issue.message }));
      expect(issues).toEqual([{ path: [PROTO], message: `Invalid input: ${message}` }]);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
    60_000,
  );
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
  it("a tool's own __proto__ key never becomes another key when a bundle is read and written", async () => {
    const path = join(dir, "tool-key.json");
    await writeFile(
      path,
      '{"version":"1.0","servers":[{"id":"shop","tools":[{"name":"get","__proto__":{"x":1},"inputSchema":{"type":"object"}}]}]}',
    );
    const result = await runCli(["schema", "normalize", "--schema", path, "--profile", "openai"]);
    expect(result.code, result.stderr).toBe(0);
    const tool = (JSON.parse(result.stdout) as { servers: { tools: object[] }[] }).servers[0]?.tools[0];
    // The bundle's zod schema leaves out an unknown tool key named __proto__, as zod does for every object.
    expect(Object.keys(tool ?? {})).toEqual(["name", "inputSchema"]);
  }, 60_000);

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
