import { mkdtemp, readdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompositionClient, OutputValidationError } from "@pmcp-codegen/runtime";
import { JsonValueSchema } from "@pmcp-codegen/runtime/parsers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsonText } from "../../src/bundle/serialize.js";
import { FIXTURES, fixtureCommand, runCli } from "../helpers/cli.js";
import { deepBundle, deepSchema, deepValue } from "../helpers/deep-schemas.js";
import { COMPILE_BUDGET_MS, outputDir, typecheck } from "../helpers/typescript.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-deep-"));
});

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

describe("schema diff at any depth", () => {
  it.each([100, 5000])("finds a type changed %i objects deep, and none between equal bundles", async (depth) => {
    const before = await file(`before-${depth}.json`, deepBundle(deepSchema(depth, "object")));
    const after = await file(`after-${depth}.json`, deepBundle(deepSchema(depth, "object", '{"type":"number"}')));
    const changed = await runCli(["schema", "diff", before, "--schema", after, "--json"]);
    expect(changed.stderr).not.toContain("Maximum call stack");
    const report = JSON.parse(changed.stdout) as { changes: { tool: string; pointer: string }[] };
    expect(report.changes.map((change) => change.tool)).toEqual(["dig", "dig"]);
    const same = await runCli(["schema", "diff", before, "--schema", before, "--json"]);
    expect(same.code, same.stderr).toBe(0);
    expect(JSON.parse(same.stdout).changes).toEqual([]);
  });
});

describe("schema diff through the named types of deep parts", () => {
  it("judges a type change 40 objects deep in detail, at its own pointer", async () => {
    const before = await file("before-40.json", deepBundle(deepSchema(40, "object")));
    const after = await file("after-40.json", deepBundle(deepSchema(40, "object", '{"type":"number"}')));
    const result = await runCli(["schema", "diff", before, "--schema", after, "--json"]);
    const report = JSON.parse(result.stdout) as { changes: { level: string; rule: string; pointer: string }[] };
    const pointer = `/properties/deep${"/properties/a".repeat(40)}`;
    expect(report.changes.map(({ level, rule, pointer }) => ({ level, rule, pointer }))).toEqual([
      { level: "breaking", rule: "type-changed", pointer: `/inputSchema${pointer}` },
      { level: "breaking", rule: "type-changed", pointer: `/outputSchema${pointer}` },
    ]);
  });
});

describe("schema export --check on drift deep in a schema", () => {
  it.each([100, 3000])("names the change %i arrays deep, not 'formatting or key order'", async (depth) => {
    const bundle = join(dir, `export-${depth}.json`);
    const server = fixtureCommand("deep-server.mjs");
    const exported = await runCli(["schema", "export", "--stdio", server, "--id", "deep", "-o", bundle, "--quiet"], {
      env: { DIG_DEPTH: String(depth) },
    });
    expect(exported.code, exported.stderr).toBe(0);
    const checked = await runCli(["schema", "export", "--stdio", server, "--id", "deep", "-o", bundle, "--check", "--json"], {
      env: { DIG_DEPTH: String(depth), DIG_LEAF: "number" },
    });
    expect(checked.code).toBe(1);
    const { changes } = JSON.parse(checked.stdout) as { changes: string[] };
    expect(changes).toEqual([
      `DANGEROUS deep/dig /inputSchema/properties/deep${"/items".repeat(64)}: changed where the schema nests too deep to compare in detail [nested-too-deep]`,
    ]);
  });
});

describe("a result nested 1,500 deep through the runtime", () => {
  it("parses with the JSON value parser, from a real server", async () => {
    const client = new CompositionClient({
      servers: { deep: { command: process.execPath, args: [join(FIXTURES, "deep-server.mjs")] } },
      timeoutMs: 60_000,
    });
    try {
      const result = await client.callTool({
        server: "deep",
        tool: "nest",
        args: { depth: 1500 },
        parse: JsonValueSchema,
        retryable: true,
      });
      let depth = 0;
      for (let value = (result as { value: unknown }).value; typeof value === "object" && value !== null; depth++) {
        value = Array.isArray(value) ? value[0] : (value as { in: unknown }).in;
      }
      expect(depth).toBe(1500);
    } finally {
      await client.close();
    }
  });
});

describe("a generated client on deep results from a real server", () => {
  let client: CompositionClient;
  // biome-ignore lint/suspicious/noExplicitAny: the generated class is loaded at run time; its types are checked by tsc elsewhere
  let deep: any;
  beforeAll(async () => {
    const out = await outputDir("deep-server");
    const bundle = join(out, "bundle.json");
    const exported = await runCli(["schema", "export", "--stdio", fixtureCommand("deep-server.mjs"), "--id", "deep", "-o", bundle]);
    expect(exported.code, exported.stderr).toBe(0);
    const generated = await runCli(["generate", "--schema", bundle, "-o", join(out, "client")]);
    expect(generated.code, generated.stderr).toBe(0);
    const module = await import(join(out, "client", "index.ts"));
    client = new CompositionClient({
      servers: { deep: { command: process.execPath, args: [join(FIXTURES, "deep-server.mjs")] } },
      timeoutMs: 60_000,
    });
    deep = new module.DeepClient(client);
  }, 300_000);
  afterAll(() => client.close());

  it("parses a value 1,500 deep where the schema says any JSON value", async () => {
    const result = (await deep.nest({ depth: 1500 })) as { value: unknown };
    expect(jsonText(result.value)).toBe(jsonText(nestedValue(1500)));
  });

  it("parses a value 100 deep under a recursive schema, and one 1,500 deep fails as an OutputValidationError", async () => {
    const shallow = (await deep.tree({ depth: 100 })) as { value: unknown };
    expect(jsonText(shallow.value)).toBe(jsonText(nestedValue(100)));
    const error = await deep.tree({ depth: 1500 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OutputValidationError);
    expect((error as OutputValidationError).issues.map((issue) => issue.message)).toEqual(["nested too deep to check"]);
  });
});

/** What the deep server sends for `depth`: arrays and objects by turns, "bottom" at the bottom. */
function nestedValue(depth: number): unknown {
  let value: unknown = "bottom";
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { in: value };
  return value;
}

describe("generated code for deep schemas", () => {
  const cases = (["object", "items", "anyOf"] as const).flatMap((nesting) => [50, 64, 100].map((depth) => ({ nesting, depth })));
  let out: string;
  // One bundle, one server per case, one generate.
  beforeAll(async () => {
    out = await outputDir("deep");
    const servers = cases.map(({ nesting, depth }) => ({
      ...JSON.parse(deepBundle(deepSchema(depth, nesting))).servers[0],
      id: `${nesting}-${depth}`,
    }));
    const bundle = join(out, "bundle.json");
    await writeFile(bundle, JSON.stringify({ version: "1.0", servers }));
    const result = await runCli(["generate", "--schema", bundle, "-o", join(out, "clients"), "--json"]);
    expect(result.code, result.stderr).toBe(0);
  }, 600_000);

  it("compiles with tsc --strict at 50, 64 and 100 levels of objects, items and anyOf", async () => {
    expect((await readdir(join(out, "clients"))).sort()).toEqual(
      [...cases.map(({ nesting, depth }) => `${nesting}-${depth}.ts`), "index.ts"].sort(),
    );
    expect(await typecheck(out, [join(out, "clients", "index.ts")], "nodenext")).toBe("");
  }, 600_000);

  it.each(cases)("parses a valid value $depth levels of $nesting deep, and rejects a wrong leaf", async ({ nesting, depth }) => {
    const module = (await import(join(out, "clients", `${nesting}-${depth}.ts`))) as Record<
      string,
      { safeParse(value: unknown): { success: boolean } }
    >;
    const parser = module.DigResultSchema!;
    expect(parser.safeParse({ deep: deepValue(depth, nesting) }).success).toBe(true);
    // Within the IR's limit of 64 levels (the tool's own object is one) the leaf is checked; below it, any JSON value passes.
    const wrongLeaf = JSON.parse(JSON.stringify(deepValue(depth, nesting)).replace('"bottom"', "7"));
    expect(parser.safeParse({ deep: wrongLeaf }).success).toBe(depth >= 64);
  });
});

describe("every command on a schema 10,000 levels deep", () => {
  const DEPTH = 10_000;
  let bundle: string;
  let changed: string;
  beforeAll(async () => {
    bundle = await file("deep-10000.json", deepBundle(deepSchema(DEPTH, "object")));
    changed = await file("deep-10000-number.json", deepBundle(deepSchema(DEPTH, "object", '{"type":"number"}')));
  });
  /** `/properties/deep` then `levels` times `/properties/a`, under `root`. */
  const at = (root: string, levels: number) => `${root}/properties/deep${"/properties/a".repeat(levels)}`;

  it("schema validate reads it", async () => {
    const result = await runCli(["schema", "validate", "--schema", bundle]);
    expect(result).toEqual({ code: 0, stdout: "valid (bundle): 1 server, 1 tool\n", stderr: "" });
  });

  it("schema diff finds the change at the bottom", async () => {
    const result = await runCli(["schema", "diff", bundle, "--schema", changed, "--json"]);
    const report = JSON.parse(result.stdout) as { changes: { tool: string }[] };
    expect(report.changes.map((change) => change.tool)).toEqual(["dig", "dig"]);
  });

  it("generate types the first 64 levels and warns where it stops, naming server, tool and pointer", async () => {
    const out = await outputDir("deep-10000");
    const result = await runCli(["generate", "--schema", bundle, "-o", out]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr.split("\n")).toEqual([
      `warning: server "deep" tool "dig" at ${at("/inputSchema", 64)}: nested deeper than 64 levels`,
      `warning: server "deep" tool "dig" at ${at("/outputSchema", 64)}: nested deeper than 64 levels`,
      "",
    ]);
  });

  it("inspect shows the tool, as text and as JSON", async () => {
    const text = await runCli(["inspect", "dig", "--schema", bundle]);
    expect(text.code, text.stderr).toBe(0);
    const json = await runCli(["inspect", "dig", "--schema", bundle, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ name: "deep/dig" });
  });

  it("schema normalize leaves the tool as exported, naming server, tool and pointer", async () => {
    const result = await runCli(["schema", "normalize", "--schema", bundle, "--profile", "openai", "-o", join(dir, "normalized.json")]);
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n")).toEqual([
      `warning: server "deep" tool "dig": not normalized, left as exported: ${at("/inputSchema", 256)}: nested deeper than 256 levels`,
      "pmcp: 1 tool could not be normalized for openai",
      "",
    ]);
  });

  it("schema lint reads every level", async () => {
    const result = await runCli(["schema", "lint", "--schema", bundle, "--profile", "openai"]);
    expect(result).toEqual({ code: 0, stdout: "no findings for openai\n", stderr: "" });
  });
});

describe("a const or enum value 10,000 levels deep", () => {
  const DEPTH = 10_000;
  const value = (leaf: string) => `${'{"a":'.repeat(DEPTH)}${leaf}${"}".repeat(DEPTH)}`;
  const bundleOf = (leaf: string) =>
    deepBundle(`{"type":"object","properties":{"one":{"const":${value(leaf)}},"few":{"enum":[1,${value(leaf)}]}}}`);

  it(
    "generate ignores it with a warning naming server, tool and pointer, and the module compiles",
    async () => {
      const path = await file("deep-const.json", bundleOf("1"));
      const out = await outputDir("deep-const");
      const result = await runCli(["generate", "--schema", path, "-o", out]);
      expect(result.code, result.stderr).toBe(0);
      const warning = (schema: string, keyword: string) =>
        `warning: server "deep" tool "dig" at /${schema}/properties/deep/properties/${keyword === "const" ? "one" : "few"}/${keyword}: a value nested deeper than 64 levels cannot be checked; "${keyword}" is ignored (wider)`;
      expect(result.stderr.split("\n")).toEqual([
        warning("inputSchema", "const"),
        warning("inputSchema", "enum"),
        warning("outputSchema", "const"),
        warning("outputSchema", "enum"),
        "",
      ]);
      expect(await typecheck(out, [join(out, "index.ts")], "nodenext")).toBe("");
    },
    COMPILE_BUDGET_MS,
  );

  it("inspect shows it, and schema diff finds a change at its bottom", async () => {
    const before = await file("deep-const-1.json", bundleOf("1"));
    const after = await file("deep-const-2.json", bundleOf("2"));
    const inspected = await runCli(["inspect", "dig", "--schema", before]);
    expect(inspected.code, inspected.stderr).toBe(0);
    const diff = await runCli(["schema", "diff", before, "--schema", after, "--json"]);
    expect(diff.code, diff.stderr).toBe(0);
    const report = JSON.parse(diff.stdout) as { changes: { pointer: string }[] };
    expect(report.changes.map((change) => change.pointer)).toEqual([
      "/inputSchema/properties/deep/properties/one/const",
      "/inputSchema/properties/deep/properties/few/enum",
      "/outputSchema/properties/deep/properties/one/const",
      "/outputSchema/properties/deep/properties/few/enum",
    ]);
  });
});
