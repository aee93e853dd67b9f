import { mkdir, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { CompositionClient } from "@pmcp-codegen/runtime";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "../../src/bundle/types.js";
import { planServerModule } from "../../src/codegen/plan.js";
import { renderClients } from "../../src/codegen/render.js";
import { loadTemplates } from "../../src/generate/template-files.js";
import { LISTED_TOOLS } from "../fixtures/listing-server.mjs";
import { PROTOTYPE_NAMES } from "../fixtures/prototype-names-server.mjs";
import { FIXTURES, ROOT, runCli, runInProcess } from "../helpers/cli.js";
import { COMPILE_BUDGET_MS, outputDir, typecheck, typecheckCases } from "../helpers/typescript.js";

const templates = await loadTemplates();

const require = createRequire(import.meta.url);

/** The bundles whose generated clients the tests below compile and load, one case each. */
const CASES = {
  proto: { version: "1.0", servers: [{ id: "proto", tools: PROTOTYPE_NAMES.map((name) => ({ name })) }] },
  definitions: {
    version: "1.0",
    servers: [
      {
        id: "defs",
        tools: [
          {
            name: "plan",
            outputSchema: {
              type: "object",
              properties: { trip: { $ref: "#/$defs/Trip" }, tree: { $ref: "#/$defs/Tree" } },
              required: ["trip"],
              $defs: {
                Trip: {
                  type: "object",
                  properties: { from: { $ref: "#/$defs/Place" }, to: { $ref: "#/$defs/Place" } },
                  required: ["from"],
                },
                Place: { type: "object", properties: { at: { $ref: "#/$defs/Coord" } }, required: ["at"] },
                Coord: { type: "array", items: { type: "number" } },
                Tree: { type: "object", properties: { children: { type: "array", items: { $ref: "#/$defs/Tree" } } } },
              },
            },
          },
        ],
      },
      { id: "untyped", tools: [{ name: "any" }] },
    ],
  },
  cycles: {
    version: "1.0",
    servers: [
      {
        id: "cycles",
        tools: Object.entries({
          self: { $defs: { A: { $ref: "#/$defs/A" } }, $ref: "#/$defs/A" },
          pair: { $defs: { A: { $ref: "#/$defs/B" }, B: { $ref: "#/$defs/A" } }, $ref: "#/$defs/A" },
          union: { $defs: { A: { anyOf: [{ type: "string" }, { $ref: "#/$defs/A" }] } }, $ref: "#/$defs/A" },
          both: { $defs: { A: { allOf: [{ type: "object" }, { $ref: "#/$defs/A" }] } }, $ref: "#/$defs/A" },
          root: { $ref: "#" },
          // Through a property: a tree, not a cycle to cut.
          tree: { type: "object", properties: { next: { $ref: "#" } } },
        }).map(([name, outputSchema]) => ({ name, outputSchema })),
      },
    ],
  },
} satisfies Record<string, Bundle>;
type Case = keyof typeof CASES;
type Rendered = Awaited<ReturnType<typeof renderClients>>;

let root: string;
let rendered: Record<Case, Rendered>;
let diagnostics: Record<Case, string>;

/** Each case rendered into its own folder of `root`, then all compiled with tsc --strict in one run. */
beforeAll(async () => {
  root = await outputDir("generate");
  const options = { source: "b", runtimeImport: "@pmcp-codegen/runtime", strictObjects: false, generatorVersion: "test" };
  const entries = await Promise.all(
    Object.entries(CASES).map(async ([name, bundle]) => {
      const result = renderClients(bundle, options, templates);
      await mkdir(join(root, name));
      for (const file of result.files) await writeFile(join(root, name, file.path), file.content);
      return [name, result] as const;
    }),
  );
  rendered = Object.fromEntries(entries) as Record<Case, Rendered>;
  const indexes = Object.fromEntries(entries.map(([name]) => [name, [join(root, name, "index.ts")]])) as Record<Case, string[]>;
  diagnostics = await typecheckCases(root, indexes, "nodenext");
}, COMPILE_BUDGET_MS);

describe("naming", () => {
  it("never names a method like Object.prototype's, so a client's toString and valueOf stay JavaScript's and each tool is called", async () => {
    const plan = planServerModule(CASES.proto.servers[0]!, { strictObjects: false, minQuality: "low" });
    expect(plan.tools.map((tool) => tool.methodName)).toEqual([
      "hasOwnProperty2",
      "then2",
      "toString2",
      "valueOf2",
      "constructor_",
      "proto",
    ]);
    expect(plan.warnings.map((warning) => warning.tool)).toEqual(["hasOwnProperty", "then", "toString", "valueOf"]);
    expect(diagnostics.proto).toBe("");
    const { ProtoClient } = await import(join(root, "proto/proto.ts"));
    const upstream = new CompositionClient({
      servers: { proto: { command: process.execPath, args: [join(FIXTURES, "prototype-names-server.mjs")] } },
      timeoutMs: 20_000,
    });
    try {
      const client = new ProtoClient(upstream);
      expect(String(client)).toBe("[object Object]");
      expect(client.valueOf()).toBe(client);
      expect(Object.hasOwn(client, "x")).toBe(false);
      const methods = ["hasOwnProperty2", "then2", "toString2", "valueOf2", "constructor_", "proto"];
      const answers = [];
      for (const method of methods) answers.push(((await client[method]({})) as { toolName: string; text: string }).text);
      expect(answers).toEqual(PROTOTYPE_NAMES.map((tool) => JSON.stringify({ tool })));
    } finally {
      await upstream.close();
    }
  }, 120_000);
});

describe("pmcp generate end to end with the reference servers", () => {
  it(
    "exports, generates, compiles, and calls a read-only tool of each",
    async () => {
      const dir = await outputDir("third-party");
      const entry = (name: string) => join(require.resolve(`@modelcontextprotocol/${name}/package.json`), "..", "dist/index.js");
      const servers = {
        everything: { command: process.execPath, args: [entry("server-everything")] },
        files: { command: process.execPath, args: [entry("server-filesystem"), dir] },
        memory: { command: process.execPath, args: [entry("server-memory")], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
      };
      const config = join(dir, "mcp.json");
      await writeFile(config, JSON.stringify({ mcpServers: servers }));
      expect((await runCli(["schema", "export", "--config", config, "-o", join(dir, "bundle.json")])).code).toBe(0);
      const generated = await runInProcess(["generate", "--schema", join(dir, "bundle.json"), "-o", join(dir, "clients")]);
      expect(generated.code, generated.stderr).toBe(0);
      expect(await typecheck(dir, [join(dir, "clients/index.ts")], "nodenext")).toBe("");

      const clients = await import(join(dir, "clients/index.ts"));
      const upstream = await CompositionClient.fromConfigFile(config);
      try {
        const weather = await new clients.EverythingClient(upstream).getStructuredContent({ location: "Chicago" });
        expect(typeof weather.temperature).toBe("number");
        const allowed = await new clients.FilesClient(upstream).listAllowedDirectories();
        expect(JSON.stringify(allowed)).toContain("third-party");
        const graph = await new clients.MemoryClient(upstream).readGraph();
        expect(graph).toEqual({ entities: [], relations: [] });
      } finally {
        await upstream.close();
      }
    },
    COMPILE_BUDGET_MS,
  );
});

describe("pmcp generate options and guarantees", () => {
  it("--templates overrides a built-in template; warnings name server, tool and JSON pointer", async () => {
    const dir = await outputDir("templates");
    // The listing fixture's tools as schema export records them (export.test.ts checks that): by name.
    const bundle = join(dir, "bundle.json");
    const tools = [...LISTED_TOOLS].sort((a, b) => (a.name < b.name ? -1 : 1));
    await writeFile(bundle, JSON.stringify({ version: "1.0", servers: [{ id: "listing", tools }] }));
    const builtIn = await readFile(join(ROOT, "templates/index.ts.hbs"), "utf8");
    await mkdir(join(dir, "tpl"), { recursive: true });
    await writeFile(
      join(dir, "tpl/index.ts.hbs"),
      builtIn.replace("{{banner}}", "{{banner}}\n// house style: reviewed by the platform team"),
    );
    const result = await runCli(["generate", "--schema", bundle, "-o", join(dir, "out"), "--templates", join(dir, "tpl")]);
    expect(result.code).toBe(0);
    expect(await readFile(join(dir, "out/index.ts"), "utf8")).toContain("// house style: reviewed by the platform team");
    expect(await readFile(join(dir, "out/listing.ts"), "utf8")).toContain("export class ListingClient");
    expect(result.stderr).toMatch(
      /warning: server "listing" tool "dangling" at \/outputSchema\/properties\/a\/\$ref: dangling \$ref "#\/\$defs\/Missing"; typed as unknown/,
    );
    expect(result.stderr).toMatch(
      /warning: server "listing" tool "delete_record": method name taken by another tool or type; using deleteRecord2/,
    );
    // A module kept as it was (inputs unchanged) still reports its warnings.
    const again = await runInProcess(["generate", "--schema", bundle, "-o", join(dir, "out"), "--templates", join(dir, "tpl"), "--json"]);
    expect(JSON.parse(again.stdout)).toMatchObject({ reused: ["listing"] });
    expect(again.stderr).toMatch(/warning: server "listing" tool "dangling" at \/outputSchema\/properties\/a\/\$ref/);
  });

  it("declares definitions dependencies-first, lazy only within a reference cycle, and imports zod only when used", async () => {
    const { files } = rendered.definitions;
    const module = files.find((file) => file.path === "defs.ts")!.content;
    // Each parser is asserted to its type, the definitions' first, then the tool's.
    const declarations = [...module.matchAll(/^export const (\w+)Schema = (z\.lazy\()?[^;]*? as unknown as z\.ZodType<(\w+)>;$/gms)].map(
      (match) => `${match[1]}${match[2] ? " lazy" : ""}${match[3] === match[1] ? "" : ` as ${match[3]}`}`,
    );
    expect(declarations).toEqual(["Coord", "Place", "Trip", "Tree lazy", "PlanResult"]);
    const untyped = files.find((file) => file.path === "untyped.ts")!.content;
    expect(untyped).not.toContain('from "zod"');
    expect(diagnostics.definitions).toBe("");
    const { PlanResultSchema } = await import(join(root, "definitions/defs.ts"));
    expect(PlanResultSchema.safeParse({ trip: { from: { at: [1, 2] } }, tree: { children: [{ children: [] }] } }).success).toBe(true);
    expect(PlanResultSchema.safeParse({ trip: { from: { at: ["x"] } } }).success).toBe(false);
    expect(PlanResultSchema.safeParse({ trip: { from: { at: [] } }, tree: { children: [{ children: "no" }] } }).success).toBe(false);
  });

  it("a $ref cycle with no object or array in between is any value, with a warning, and the output compiles and parses", async () => {
    const { warnings } = rendered.cycles;
    expect(warnings.map((warning) => `${warning.tool} ${warning.pointer}`).sort()).toEqual([
      "both /outputSchema→#/$defs/A/allOf/1/$ref",
      "pair /outputSchema→#/$defs/A→#/$defs/B/$ref",
      "root /outputSchema→#/$ref",
      "self /outputSchema→#/$defs/A/$ref",
      "union /outputSchema→#/$defs/A/anyOf/1/$ref",
    ]);
    expect(diagnostics.cycles).toBe("");
    const module = await import(join(root, "cycles/cycles.ts"));
    expect(module.SelfResultSchema.safeParse({ any: ["value"] }).success).toBe(true);
    expect(module.UnionResultSchema.safeParse(3).success).toBe(true);
    expect(module.BothResultSchema.safeParse("text").success).toBe(false);
    expect(module.TreeResultSchema.safeParse({ next: { next: {} } }).success).toBe(true);
    expect(module.TreeResultSchema.safeParse({ next: { next: 1 } }).success).toBe(false);
  });

  it("a re-run with unchanged inputs touches nothing, yet sees every change to the bundle, the options or the output", async () => {
    const dir = await outputDir("re-run");
    const bundlePath = join(dir, "bundle.json");
    const out = join(dir, "out");
    const bundle = { version: "1.0", servers: [{ id: "listing", tools: LISTED_TOOLS }] };
    await writeFile(bundlePath, JSON.stringify(bundle));
    // In this process: the claim is the files each run writes, not the process.
    const generate = async (...extra: string[]) => {
      const result = await runInProcess(["generate", "--schema", bundlePath, "-o", out, "--json", ...extra]);
      expect(result.code).toBe(0);
      return JSON.parse(result.stdout) as { reused: string[]; changed: string[]; removed: string[]; warnings: number };
    };
    const module = join(out, "listing.ts");
    const first = await generate();
    expect(first.changed).toEqual([module, join(out, "index.ts")]);
    const written = await stat(module);

    const again = await generate();
    expect(again).toMatchObject({ reused: ["listing"], changed: [], removed: [], warnings: first.warnings });
    // The same bytes written anew (a fresh checkout) are no change either.
    await writeFile(bundlePath, JSON.stringify(bundle));
    expect(await generate()).toMatchObject({ reused: ["listing"], changed: [] });
    expect((await stat(module)).mtimeMs).toBe(written.mtimeMs);

    const original = await readFile(module, "utf8");
    await writeFile(module, `${original}// hand edit\n`);
    expect((await generate()).changed).toEqual([module]);
    expect(await readFile(module, "utf8")).toBe(original);
    await rm(module);
    expect((await generate()).changed).toEqual([module]);
    await writeFile(join(out, "gone.ts"), "// Generated by pmcp-codegen 0.0.1 from x. Do not edit: run pmcp generate.\n");
    expect((await generate()).removed).toEqual([join(out, "gone.ts")]);

    expect((await generate("--runtime-import", "@acme/pmcp-runtime")).changed).toEqual([module]);
    const described = structuredClone(bundle);
    described.servers[0]!.tools[0]!.description = "Now described differently.";
    await writeFile(bundlePath, JSON.stringify(described));
    expect((await generate("--runtime-import", "@acme/pmcp-runtime")).changed).toEqual([module]);
    expect(await readFile(module, "utf8")).toContain("Now described differently.");
  });
});

describe("pmcp.config", () => {
  it("a bare `pmcp schema export && pmcp generate` works from pmcp.config.json", async () => {
    const dir = await outputDir("config-json");
    await writeFile(
      join(dir, "pmcp.config.json"),
      JSON.stringify({
        servers: { inv: { command: process.execPath, args: [join(ROOT, "test/fixtures/typed-server.mjs")] } },
        bundle: "out/bundle.json",
        output: "src/clients",
      }),
    );
    const exported = await runCli(["schema", "export"], { cwd: dir });
    expect(exported.code, exported.stderr).toBe(0);
    const generated = await runCli(["generate"], { cwd: dir });
    expect(generated.code, generated.stderr).toBe(0);
    expect((await readdir(join(dir, "src/clients"))).sort()).toEqual(["index.ts", "inv.ts"]);
    expect(await readFile(join(dir, "src/clients/inv.ts"), "utf8")).toMatch(/export class InvClient/);
  });

  it("pmcp.config.ts with defineConfig sets the runtime import and strict objects", async () => {
    const dir = await outputDir("config-ts");
    await writeFile(
      join(dir, "pmcp.config.ts"),
      [
        'import { defineConfig } from "pmcp-codegen/config";',
        "export default defineConfig({",
        `  servers: { typed: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(join(ROOT, "test/fixtures/typed-server.mjs"))}] } },`,
        '  runtimeImport: "@acme/pmcp-runtime",',
        "  strictObjects: true,",
        "});",
      ].join("\n"),
    );
    expect((await runCli(["schema", "export"], { cwd: dir })).code).toBe(0);
    expect((await runCli(["generate"], { cwd: dir })).code).toBe(0);
    const text = await readFile(join(dir, "generated/typed.ts"), "utf8");
    expect(text).toContain('import * as rt from "@acme/pmcp-runtime";');
    expect(text).toContain("z.strictObject(");
  });

  it("a broken config is a usage error naming the file", async () => {
    const dir = await outputDir("config-bad");
    await writeFile(join(dir, "pmcp.config.json"), JSON.stringify({ output: 3 }));
    const result = await runInProcess(["generate"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/pmcp\.config\.json at output: /);
  });

  it("generate without a bundle is a usage error that says how to write one", async () => {
    const dir = await outputDir("no-bundle");
    const result = await runInProcess(["generate"], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr.split("\n")[0]).toBe(
      "pmcp: schemas/mcp-bundle.json: no such file or folder; run pmcp schema export first to write the bundle",
    );
  });
});
