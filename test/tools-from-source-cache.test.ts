import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ReuseCache } from "../src/codegen/reuse-cache.js";
import { type CliResult, runCli } from "./helpers/cli.js";

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
 * A project in the temp folder: `tools.ts` importing `types.ts`, a tsconfig.json extending
 * tsconfig.base.json, and (unless `modules: false`) its own node_modules for the cache.
 */
async function project({ modules = true } = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "pmcp-from-source-cache-"));
  projects.push(dir);
  if (modules) await mkdir(join(dir, "node_modules"));
  const base = { compilerOptions: { strict: true, target: "es2022", module: "nodenext", moduleResolution: "nodenext", types: [] } };
  await writeFile(join(dir, "tsconfig.base.json"), JSON.stringify(base));
  await writeFile(join(dir, "tsconfig.json"), JSON.stringify({ extends: "./tsconfig.base.json", compilerOptions: {} }));
  await writeFile(join(dir, "types.ts"), "export interface Query {\n  text: string;\n}\n");
  await writeFile(join(dir, "tools.ts"), TOOLS);
  return dir;
}

const fromSource = (dir: string, ...flags: string[]) => runCli(["tools", "from-source", "tools.ts", ...flags], { cwd: dir });

/** The one entry the runs in `dir` recorded. */
async function entryOf(dir: string): Promise<string> {
  const folder = join(dir, "node_modules", ".cache", "pmcp-codegen", "from-source");
  const names = await readdir(folder);
  expect(names).toHaveLength(1);
  return join(folder, names[0]!);
}

/** NODE_OPTIONS under which resolving `typescript` fails: a run that loads the compiler cannot succeed. */
async function withoutTypescript(dir: string): Promise<NodeJS.ProcessEnv> {
  const hooks = join(dir, "no-typescript-hooks.mjs");
  await writeFile(
    hooks,
    'export async function resolve(specifier, context, next) {\n  if (specifier === "typescript") throw new Error("typescript was loaded");\n  return next(specifier, context);\n}\n',
  );
  const register = join(dir, "no-typescript.mjs");
  await writeFile(register, `import { register } from "node:module";\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
  return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ""} --import=${pathToFileURL(register).href}` };
}

/** Each tool's name and the names of its arguments, from a successful run's manifest. */
function toolsOf(result: CliResult): [string, string[]][] {
  expect(result.code, result.stderr).toBe(0);
  const manifest = JSON.parse(result.stdout) as { tools: { name: string; inputSchema: { properties?: object } }[] };
  return manifest.tools.map((tool) => [tool.name, Object.keys(tool.inputSchema.properties ?? {})]);
}

describe("pmcp tools from-source's cache", () => {
  it("answers a second run from the cache without loading TypeScript: the same manifest bytes, the entry not rewritten", async () => {
    const dir = await project();
    const first = await fromSource(dir);
    expect(toolsOf(first)).toEqual([["search", ["text"]]]);
    const entry = await entryOf(dir);
    const before = await stat(entry);

    const env = await withoutTypescript(dir);
    const again = await runCli(["tools", "from-source", "tools.ts"], { cwd: dir, env });
    expect(again).toEqual(first);
    const after = await stat(entry);
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs]);

    // The same environment stops a run that compiles: the check above could fail.
    const compiled = await runCli(["tools", "from-source", "tools.ts", "--no-cache"], { cwd: dir, env });
    expect(compiled.code).toBe(1);
    expect(compiled.stderr).toContain("typescript was loaded");
  });

  it("a hit answers with the recorded result; --no-cache neither reads nor rewrites it", async () => {
    const dir = await project();
    const first = await fromSource(dir);
    const entry = await entryOf(dir);
    const recorded = await readFile(entry, "utf8");
    const altered = recorded.replace('"Finds documents."', '"Recorded."');
    expect(altered).not.toBe(recorded);
    await writeFile(entry, altered);

    expect(JSON.parse((await fromSource(dir)).stdout).tools[0].description).toBe("Recorded.");
    expect(await fromSource(dir, "--no-cache")).toEqual(first);
    expect(await readFile(entry, "utf8")).toBe(altered);
  });

  it.each([
    [
      "the module",
      "tools.ts",
      (text: string) => `${text}\nexport async function count(): Promise<number> {\n  return 0;\n}\n`,
      [
        ["search", ["text"]],
        ["count", []],
      ],
    ],
    [
      "a file it imports",
      "types.ts",
      (text: string) => text.replace("text: string;", "text: string;\n  limit?: number;"),
      [["search", ["text", "limit"]]],
    ],
  ])("editing %s gives the new result", async (_label, file, edit, expected) => {
    const dir = await project();
    expect(toolsOf(await fromSource(dir))).toEqual([["search", ["text"]]]);
    await entryOf(dir);
    await writeFile(join(dir, file), edit(await readFile(join(dir, file), "utf8")));
    expect(toolsOf(await fromSource(dir))).toEqual(expected);
  });

  it.each(["tsconfig.json", "tsconfig.base.json"])("editing %s gives the new result", async (config) => {
    const dir = await project();
    expect((await fromSource(dir)).code).toBe(0);
    await entryOf(dir);
    const parsed = JSON.parse(await readFile(join(dir, config), "utf8"));
    parsed.compilerOptions.noUnusedLocals = true;
    await writeFile(join(dir, config), JSON.stringify(parsed));
    const result = await fromSource(dir);
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n")[0]).toBe("pmcp: tools.ts:3:7: 'spare' is declared but its value is never read.");
  });

  it.each([
    ["cut short", (text: string) => text.slice(0, text.length / 2)],
    ["null", () => "null"],
    ["without a result", (text: string) => JSON.stringify({ files: JSON.parse(text).files })],
  ])("an entry %s is a miss: the same result, the entry written again", async (_label, corrupt) => {
    const dir = await project();
    const first = await fromSource(dir);
    const entry = await entryOf(dir);
    const recorded = await readFile(entry, "utf8");
    await writeFile(entry, corrupt(recorded));
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
