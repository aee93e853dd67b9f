import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { observationPath } from "@pmcp-codegen/runtime";
import { formatObservationLog } from "@pmcp-codegen/runtime/internal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, runInProcess } from "../helpers/cli.js";

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-generate-observations-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A bundle of one server, `learning`, whose `count` and `news` tools declare no output schema. */
async function writeBundle(path: string): Promise<void> {
  const tool = (name: string) => ({ name, inputSchema: { type: "object", properties: {} } });
  await mkdir(dirname(path), { recursive: true });
  await writeFile(
    path,
    `${JSON.stringify({ version: "1.0", servers: [{ id: "learning", tools: [tool("count"), tool("news")] }] }, null, 2)}\n`,
  );
}

/** `learning/count`'s log: `n` results `{ "count": i }`. */
async function writeCounts(logs: string, n: number): Promise<void> {
  const path = observationPath(logs, "learning", "count");
  await mkdir(dirname(path), { recursive: true });
  const at = "2026-01-01T00:00:00.000Z";
  const header = {
    format: "pmcp-observations/1" as const,
    server: "learning",
    tool: "count",
    seen: n,
    firstSeen: at,
    lastSeen: at,
    redacted: false,
  };
  const samples = Array.from({ length: n }, (_, index) => ({ at, value: { count: index } }));
  await writeFile(path, formatObservationLog({ header, samples }));
}

const stamp = async (path: string) => {
  const info = await stat(path);
  return [info.ino, info.mtimeMs];
};

describe("pmcp generate --observations", () => {
  it("infers into the bundle, then generates: what schema infer then generate do, in one step; --check writes nothing", async () => {
    const work = join(dir, "one-step");
    const bundle = join(work, "schemas/mcp-bundle.json");
    const logs = join(work, "observations");
    const out = join(work, "generated");
    await writeBundle(bundle);
    await writeCounts(logs, 10);
    const args = ["generate", "--schema", bundle, "-o", out, "--observations", logs];
    // The first run in a process of its own, the rest in this one: their claims are the files and lines each writes.
    const generate = (...extra: string[]) => runInProcess([...args, ...extra], { cwd: work });

    const first = await runCli(args, { cwd: work });
    expect([first.code, first.stdout, first.stderr]).toEqual([
      0,
      [
        "inferred learning/count: 10 observations, quality medium (consistency 1)",
        `Generated clients in ${out}: 1 server, 2 tools`,
        "Schema quality:",
        "  learning: 2 tools, by source: inferred 1 (50.0%), unknown 1 (50.0%); by quality: medium 1 (50.0%), none 1 (50.0%)",
        "  total: 2 tools, by source: inferred 1 (50.0%), unknown 1 (50.0%); by quality: medium 1 (50.0%), none 1 (50.0%)",
        "",
      ].join("\n"),
      "",
    ]);
    const inferred = JSON.parse(await readFile(bundle, "utf8")).servers[0].inferred;
    expect(inferred.map(({ tool, observations, quality }: Record<string, unknown>) => ({ tool, observations, quality }))).toEqual([
      { tool: "count", observations: 10, quality: "medium" },
    ]);
    const module = await readFile(join(out, "learning.ts"), "utf8");
    expect(module).toMatch(/export type CountResult = \{\n {2}count: number;\n\};/);
    expect(module).toContain("export type NewsResult = rt.ToolResult;");

    // The bundle `schema infer` writes, byte for byte.
    const manual = join(dir, "two-steps");
    await writeBundle(join(manual, "schemas/mcp-bundle.json"));
    expect((await runInProcess(["schema", "infer", "--quiet", "--observations", logs], { cwd: manual })).code).toBe(0);
    expect(await readFile(join(manual, "schemas/mcp-bundle.json"), "utf8")).toBe(await readFile(bundle, "utf8"));

    // Nothing new observed: the bundle keeps its bytes, inode and time.
    const before = await stamp(bundle);
    expect((await generate("--quiet")).code).toBe(0);
    expect(await stamp(bundle)).toEqual(before);

    // More observed: --check learns in memory, names what would change and writes nothing.
    await writeCounts(logs, 12);
    const text = await readFile(bundle, "utf8");
    const check = await generate("--check");
    expect([check.code, check.stdout, check.stderr]).toEqual([
      1,
      [
        "inferred learning/count: 12 observations, quality medium (consistency 1)",
        `stale: ${bundle} (observations not inferred yet)`,
        `stale: ${join(out, "learning.ts")}`,
        `stale: ${join(out, "index.ts")}`,
        "",
      ].join("\n"),
      "pmcp: 3 files out of date; run pmcp generate --observations\n",
    ]);
    expect(await readFile(bundle, "utf8")).toBe(text);
    const json = await generate("--check", "--json");
    // The quality summary and its changes are quality-history.test.ts's to check.
    const { quality: _quality, ...summary } = JSON.parse(json.stdout);
    expect([json.code, summary]).toEqual([
      1,
      {
        lang: "typescript",
        output: out,
        servers: 1,
        tools: 2,
        reused: [],
        warnings: 0,
        changed: [join(out, "learning.ts"), join(out, "index.ts")],
        typesChanged: [],
        removed: [],
        inferred: ["learning/count"],
        qualityChanges: [],
        upToDate: false,
      },
    ]);
    expect((await generate("--quiet")).code).toBe(0);
    expect((await generate("--check")).stdout).toBe(
      `inferred learning/count: 12 observations, quality medium (consistency 1)\n${out} is up to date\n`,
    );
  });

  it("takes one bundle file, as schema infer does; a log it cannot read is named, the rest written, and the run exits 1", async () => {
    const work = join(dir, "problems");
    const logs = join(work, "observations");
    await writeBundle(join(work, "a/one.json"));
    await writeFile(join(work, "a/two.json"), JSON.stringify({ version: "1.0", servers: [{ id: "other", tools: [] }] }));
    await writeCounts(logs, 3);
    const two = await runInProcess(["generate", "--schema", join(work, "a"), "--observations", logs], { cwd: work });
    expect([two.code, two.stderr]).toEqual([
      2,
      `pmcp: ${join(work, "a")} is not one bundle file: write one with pmcp schema infer -o <bundle>, then give it as --schema\npmcp: run 'pmcp --help' for usage\n`,
    ]);

    const file = join(work, "a/one.json");
    const notFolder = await runInProcess(["generate", "--schema", file, "--observations", file], { cwd: work });
    expect([notFolder.code, notFolder.stderr]).toEqual([
      2,
      `pmcp: ${file}: a file is there, not a folder of observation logs\npmcp: run 'pmcp --help' for usage\n`,
    ]);

    await writeFile(join(logs, "learning/news.jsonl"), "not a log\n");
    const bundle = join(work, "a/one.json");
    const broken = await runCli(["generate", "--schema", bundle, "--observations", logs], { cwd: work });
    expect([broken.code, broken.stderr]).toEqual([
      1,
      `warning: ${join(logs, "learning/news.jsonl")}:1: not JSON; not learned from\npmcp: 1 observation log not learned from\n`,
    ]);
    expect(JSON.parse(await readFile(bundle, "utf8")).servers[0].inferred.map((block: { tool: string }) => block.tool)).toEqual(["count"]);
    expect(await readFile(join(work, "generated/learning.ts"), "utf8")).toMatch(/export type CountResult = \{/);
  });
});
