import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ReuseCache } from "../../src/cache/reuse-cache.js";
import { type CliResult, runCli } from "../helpers/cli.js";

const projects: string[] = [];

afterAll(async () => {
  await Promise.all(projects.map((project) => rm(project, { recursive: true, force: true })));
});

const TOOLS = [
  'import type { Query } from "./types.js";',
  "",
  "const spare = 0;",
  "",
  "/** Finds documents. */",
  "export async function search(args: Query): Promise<{ hits: number }> {",
  "  return { hits: args.text.length };",
  "}",
  "",
].join("\n");

/**
 * A project in the temp folder: `src/tools.ts` importing `src/types.d.ts`, a tsconfig.json extending
 * tsconfig.base.json (only ES2022's libs: lib.dom alone costs each compile 0.4 s), and (unless
 * `modules: false`) its own node_modules for the cache.
 */
async function project({ modules = true } = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "pmcp-from-source-cache-"));
  projects.push(dir);
  if (modules) await mkdir(join(dir, "node_modules"));
  const base = { compilerOptions: { strict: true, target: "es2022", lib: ["es2022"], module: "nodenext", moduleResolution: "nodenext" } };
  await write(dir, "tsconfig.base.json", JSON.stringify(base));
  await write(dir, "tsconfig.json", JSON.stringify({ extends: "./tsconfig.base.json", compilerOptions: {} }));
  await write(dir, "src/types.d.ts", "export interface Query {\n  text: string;\n}\n");
  await write(dir, "src/tools.ts", TOOLS);
  return dir;
}

async function write(dir: string, file: string, text: string): Promise<void> {
  await mkdir(dirname(join(dir, file)), { recursive: true });
  await writeFile(join(dir, file), text);
}

async function edit(dir: string, file: string, change: (text: string) => string): Promise<void> {
  await writeFile(join(dir, file), change(await readFile(join(dir, file), "utf8")));
}

async function editJson(dir: string, file: string, change: (json: { compilerOptions: Record<string, unknown> }) => void): Promise<void> {
  await edit(dir, file, (text) => {
    const json = JSON.parse(text);
    change(json);
    return JSON.stringify(json);
  });
}

const fromSource = (dir: string, ...args: string[]) =>
  runCli(["tools", "from-source", ...(args[0]?.endsWith(".ts") ? args : ["src/tools.ts", ...args])], { cwd: dir });

/** The one entry the runs in `dir` recorded. */
async function entryOf(dir: string): Promise<string> {
  const folder = join(dir, "node_modules", ".cache", "pmcp-codegen", "from-source");
  const names = await readdir(folder);
  expect(names).toHaveLength(1);
  return join(folder, names[0]!);
}

/**
 * NODE_OPTIONS under which loading `typescript` fails, by import or by require (src/tools/typescript.cts
 * requires it; the ESM hooks do not see a require): a run that loads the compiler cannot succeed.
 */
async function withoutTypescript(dir: string): Promise<NodeJS.ProcessEnv> {
  const hooks = join(dir, "no-typescript-hooks.mjs");
  await writeFile(
    hooks,
    'export async function resolve(specifier, context, next) {\n  if (specifier === "typescript") throw new Error("typescript was loaded");\n  return next(specifier, context);\n}\n',
  );
  const register = join(dir, "no-typescript.mjs");
  await writeFile(register, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  const preload = join(dir, "no-typescript.cjs");
  await writeFile(
    preload,
    'const Module = require("node:module");\nconst load = Module._load;\nModule._load = function (request, ...rest) {\n  if (request === "typescript") throw new Error("typescript was loaded");\n  return load.call(this, request, ...rest);\n};\n',
  );
  return {
    NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${pathToFileURL(register).href} --require=${preload}`,
  };
}

/** Each tool's name and the names of its arguments, from a successful run's manifest. */
function toolsOf(result: CliResult): [string, string[]][] {
  expect(result.code, result.stderr).toBe(0);
  const manifest = JSON.parse(result.stdout) as { tools: { name: string; inputSchema: { properties?: object } }[] };
  return manifest.tools.map((tool) => [tool.name, Object.keys(tool.inputSchema.properties ?? {})]);
}

/** The first line of a failed run's error. */
function failure(result: CliResult): string | undefined {
  expect(result.code).toBe(1);
  return result.stderr.split("\n")[0];
}

const UNUSED_SPARE = "pmcp: src/tools.ts:3:7: 'spare' is declared but its value is never read.";

// One test at a time: each compiles several times, and run together each test's time was all of theirs.
describe("pmcp tools from-source's cache", () => {
  it("answers a second run with the recorded result, without loading TypeScript or rewriting the entry; --no-cache neither reads nor rewrites it", async () => {
    const dir = await project();
    const first = await fromSource(dir);
    expect(toolsOf(first)).toEqual([["search", ["text"]]]);
    const entry = await entryOf(dir);
    const before = await stat(entry);

    const env = await withoutTypescript(dir);
    const again = await runCli(["tools", "from-source", "src/tools.ts"], { cwd: dir, env });
    expect(again).toEqual(first);
    const after = await stat(entry);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);
    // The same environment stops a run that compiles: the check above could fail.
    const compiled = await runCli(["tools", "from-source", "src/tools.ts", "--no-cache"], { cwd: dir, env });
    expect(compiled.code).toBe(1);
    expect(compiled.stderr).toContain("typescript was loaded");

    const recorded = await readFile(entry, "utf8");
    const altered = recorded.replace('"Finds documents."', '"Recorded."');
    expect(altered).not.toBe(recorded);
    await writeFile(entry, altered);
    const hit = await runCli(["tools", "from-source", "src/tools.ts"], { cwd: dir, env });
    expect(JSON.parse(hit.stdout).tools[0].description).toBe("Recorded.");
    expect(await fromSource(dir, "--no-cache")).toEqual(first);
    expect(await readFile(entry, "utf8")).toBe(altered);
  });

  it("gives the new result after an edit of the module or of a file it imports, and when a new file takes over the import", async () => {
    const dir = await project();
    expect(toolsOf(await fromSource(dir))).toEqual([["search", ["text"]]]);
    await edit(dir, "src/tools.ts", (text) => `${text}\nexport async function count(): Promise<number> {\n  return 0;\n}\n`);
    expect(toolsOf(await fromSource(dir))).toEqual([
      ["search", ["text"]],
      ["count", []],
    ]);
    await edit(dir, "src/types.d.ts", (text) => text.replace("text: string;", "text: string;\n  limit?: number;"));
    expect(toolsOf(await fromSource(dir))).toEqual([
      ["search", ["text", "limit"]],
      ["count", []],
    ]);
    // `./types.js` resolves to types.ts before types.d.ts.
    await write(dir, "src/types.ts", "export interface Query {\n  text: string;\n  page?: number;\n}\n");
    expect(toolsOf(await fromSource(dir))).toEqual([
      ["search", ["text", "page"]],
      ["count", []],
    ]);
  });

  it("gives the new result after an edit of tsconfig.json or of the config it extends, and when a new tsconfig.json nearer the module takes over", async () => {
    const dir = await project();
    expect(toolsOf(await fromSource(dir))).toEqual([["search", ["text"]]]);
    await editJson(dir, "tsconfig.base.json", (config) => {
      config.compilerOptions.noUnusedLocals = true;
    });
    expect(failure(await fromSource(dir))).toBe(UNUSED_SPARE);
    await editJson(dir, "tsconfig.json", (config) => {
      config.compilerOptions.noUnusedLocals = false;
    });
    expect(toolsOf(await fromSource(dir))).toEqual([["search", ["text"]]]);
    await write(dir, "src/tsconfig.json", JSON.stringify({ extends: "../tsconfig.json", compilerOptions: { noUnusedLocals: true } }));
    expect(failure(await fromSource(dir))).toBe(UNUSED_SPARE);
  });

  it("records a failure, and gives the new result when an @types package is installed and when a package's types move", async () => {
    const dir = await project();
    await write(dir, "node_modules/dep/package.json", JSON.stringify({ name: "dep", version: "1.0.0", types: "a.d.ts" }));
    await write(dir, "node_modules/dep/a.d.ts", "export interface Query {\n  text: string;\n}\n");
    await write(dir, "node_modules/dep/b.d.ts", "export interface Query {\n  text: string;\n  limit?: number;\n}\n");
    // `Paging` is global, declared by no file yet.
    const module =
      'import type { Query } from "dep";\n\ninterface Args extends Query, Paging {}\n\nexport async function search(args: Args): Promise<number> {\n  return args.page;\n}\n';
    await write(dir, "src/dep.ts", module);
    const missing = "pmcp: src/dep.ts:3:31: Cannot find name 'Paging'.";
    expect(failure(await fromSource(dir, "src/dep.ts"))).toBe(missing);
    const env = await withoutTypescript(dir);
    expect(failure(await runCli(["tools", "from-source", "src/dep.ts"], { cwd: dir, env }))).toBe(missing);

    await write(dir, "node_modules/@types/paging/index.d.ts", "interface Paging {\n  page: number;\n}\n");
    expect(toolsOf(await fromSource(dir, "src/dep.ts"))).toEqual([["search", ["text", "page"]]]);
    await editJson(dir, "node_modules/dep/package.json", (json) => Object.assign(json, { types: "b.d.ts" }));
    expect(toolsOf(await fromSource(dir, "src/dep.ts"))).toEqual([["search", ["text", "limit", "page"]]]);
  });

  it("takes an entry that is not JSON, or not of an entry's shape, for a miss: the run compiles, gives the same result and writes the entry again", async () => {
    const dir = await project();
    const first = await fromSource(dir);
    const entry = await entryOf(dir);
    const recorded = await readFile(entry, "utf8");
    const altered = (change: (json: { result: { manifest: object } }) => void) => {
      const json = JSON.parse(recorded);
      change(json);
      return JSON.stringify(json);
    };
    const corruptions = [
      recorded.slice(0, recorded.length / 2),
      "null",
      // The shape entries had before they recorded observations.
      '{"files":[],"result":{"manifest":{"version":1,"tools":[]}}}',
      altered((json) => Reflect.deleteProperty(json, "result")),
      altered((json) => Reflect.deleteProperty(json.result.manifest, "source")),
      altered((json) => Reflect.deleteProperty(json.result, "warnings")),
    ];
    // A run that cannot load TypeScript shows a miss without paying for the compile.
    const env = await withoutTypescript(dir);
    for (const corrupt of corruptions) {
      await writeFile(entry, corrupt);
      const result = await runCli(["tools", "from-source", "src/tools.ts"], { cwd: dir, env });
      expect([result.code, result.stderr.includes("typescript was loaded")], corrupt).toEqual([1, true]);
    }
    expect(await fromSource(dir)).toEqual(first);
    expect(await readFile(entry, "utf8")).toBe(recorded);
  });

  it("works without a node_modules above: no cache, nothing written", async () => {
    const dir = await project({ modules: false });
    expect(await ReuseCache.open(dir)).toBeUndefined();
    const first = await fromSource(dir);
    expect(toolsOf(first)).toEqual([["search", ["text"]]]);
    expect(await fromSource(dir)).toEqual(first);
    expect(existsSync(join(dir, "node_modules"))).toBe(false);
  });
});
