// The move to the MCP SDK's v2 line, measured in one run against the commit before it (built from
// git here, against the v1 SDK this checkout keeps as a dev dependency): the export of the three
// reference servers, the first call of a client (spawn, connect, call) and the cost of each
// further call over stdio, for a 2025-only server (v1) and a server of both eras (v2).
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CompositionClient } from "@pmcp-codegen/runtime";
import { z } from "zod";
import { median, referenceExport, timeProcess } from "./lib.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const require = createRequire(import.meta.url);
const main = (name) => join(dirname(require.resolve(`@modelcontextprotocol/${name}/package.json`)), "dist/index.js");
const V2_SERVER = join(ROOT, "test/fixtures/v2-server.mjs");
const Stock = z.object({ sku: z.string(), quantity: z.number() });

/** The parent of the commit that moved product code to @modelcontextprotocol/client. */
function baseCommit() {
  const moved = execFileSync("git", ["log", "--format=%H", "-S", "@modelcontextprotocol/client", "--", "packages/runtime/package.json"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .at(-1);
  return execFileSync("git", ["rev-parse", "--short", `${moved}^`], { cwd: ROOT, encoding: "utf8" }).trim();
}

/**
 * That commit's CLI and runtime, built in a scratch folder whose node_modules holds this checkout's
 * packages except @pmcp-codegen/runtime, which is the old one.
 */
async function buildBefore(commit) {
  const dir = await mkdtemp(join(tmpdir(), "pmcp-bench-eras-"));
  execFileSync("sh", ["-c", `git archive ${commit} | tar -x -C "${dir}"`], { cwd: ROOT });
  const modules = join(dir, "node_modules");
  await mkdir(join(modules, "@pmcp-codegen"), { recursive: true });
  for (const name of await readdir(join(ROOT, "node_modules"))) {
    if (name !== "@pmcp-codegen") await symlink(join(ROOT, "node_modules", name), join(modules, name), "dir");
  }
  await symlink(join(dir, "packages/runtime"), join(modules, "@pmcp-codegen/runtime"), "dir");
  const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-b", "packages/runtime"], { cwd: dir });
  execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { cwd: dir });
  const runtime = await import(pathToFileURL(join(dir, "packages/runtime/dist/index.js")).href);
  // Its own binary: that commit ran dist/cli/main.js, before the CLI was bundled into dist/bin/pmcp.js.
  const { bin } = JSON.parse(await readFile(join(dir, "package.json"), "utf8"));
  return { dir, cli: join(dir, bin.pmcp), CompositionClient: runtime.CompositionClient };
}

/** Milliseconds from a new client to the first call's parsed result (a fresh process spawned each time), median of `times`. */
async function firstCall(Client, server, call, times) {
  const samples = [];
  for (let i = 0; i <= times; i++) {
    const start = performance.now();
    const client = new Client({ servers: { s: server } });
    await client.callTool({ server: "s", parse: Stock.passthrough().or(z.unknown()), ...call });
    if (i > 0) samples.push(performance.now() - start);
    await client.close();
  }
  return median(samples);
}

/** Microseconds per call of `n` sequential calls on one warm connection, median of `rounds`. */
async function perCall(Client, server, call, n, rounds) {
  const client = new Client({ servers: { s: server } });
  const samples = [];
  try {
    for (let round = 0; round <= rounds; round++) {
      const start = performance.now();
      for (let i = 0; i < n; i++) await client.callTool({ server: "s", parse: z.unknown(), ...call });
      if (round > 0) samples.push(((performance.now() - start) * 1000) / n);
    }
  } finally {
    await client.close();
  }
  return median(samples);
}

function line(name, ours, before, unit) {
  const digits = unit === "µs" ? 0 : 0;
  console.log(`${name}: ${ours.toFixed(digits)} ${unit} vs before ${before.toFixed(digits)} ${unit}, ratio ${(ours / before).toFixed(2)}`);
}

export async function benchEras() {
  const commit = baseCommit();
  const before = await buildBefore(commit);
  const work = await mkdtemp(join(tmpdir(), "pmcp-bench-eras-work-"));
  try {
    console.log(`\nthe v2 SDK line against ${commit} (the v1 line), in this run`);
    const ours = referenceExport(join(ROOT, "dist/bin/pmcp.js"), work);
    const theirs = referenceExport(before.cli, work);
    const env = ours.env;
    line("export of 3 reference servers (2025-only)", timeProcess(ours.args, 7, env), timeProcess(theirs.args, 7, env), "ms");

    const memory = { command: process.execPath, args: [main("server-memory")], env };
    const dual = { command: process.execPath, args: [V2_SERVER, "dual"] };
    const search = { tool: "search_nodes", args: { query: "x" } };
    const stock = { tool: "get_stock", args: { sku: "abc" } };
    // A generated client passes the era its bundle recorded; without it the runtime negotiates.
    line(
      "first call, server-memory (v1), era recorded",
      await firstCall(CompositionClient, memory, { ...search, protocol: "2025-11-25" }, 9),
      await firstCall(before.CompositionClient, memory, search, 9),
      "ms",
    );
    line(
      "first call, server-memory (v1), negotiated",
      await firstCall(CompositionClient, memory, search, 9),
      await firstCall(before.CompositionClient, memory, search, 9),
      "ms",
    );
    line(
      "first call, v2 server of both eras, 2026-07-28 recorded",
      await firstCall(CompositionClient, dual, { ...stock, protocol: "2026-07-28" }, 9),
      await firstCall(before.CompositionClient, dual, stock, 9),
      "ms",
    );
    line(
      "per call, server-memory (v1) over stdio",
      await perCall(CompositionClient, memory, { ...search, protocol: "2025-11-25" }, 200, 7),
      await perCall(before.CompositionClient, memory, search, 200, 7),
      "µs",
    );
    line(
      "per call, v2 server over stdio (2026-07-28 now, 2025 before)",
      await perCall(CompositionClient, dual, { ...stock, protocol: "2026-07-28" }, 200, 7),
      await perCall(before.CompositionClient, dual, stock, 200, 7),
      "µs",
    );
  } finally {
    await rm(work, { recursive: true, force: true });
    await rm(before.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchEras();
