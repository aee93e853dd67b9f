import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CompositionClient, OutputValidationError } from "@pmcp-codegen/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, fixtureCommand, runCli } from "../helpers/cli.js";
import { outputDir, typecheck } from "../helpers/typescript.js";

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
    // What normalizing did is recorded beside the tool, under _meta.
    expect(Object.keys(tool ?? {})).toEqual(["name", "inputSchema", "_meta"]);
    expect(Object.keys((tool as { _meta: object })._meta)).toEqual(["pmcp/normalized"]);
  }, 60_000);
});
