import { execFileSync } from "node:child_process";
import { readFileSync, watch } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { parseSchemaFile } from "../dist/bundle-files/read.js";

const require = createRequire(import.meta.url);

/** The corpus of real npm servers' tools the normalize and model benches run on. */
export const CORPUS = fileURLToPath(new URL("../test/corpus/servers.bundle.json.gz", import.meta.url));

/** The bundle in a `.json` or `.json.gz` schema file. */
export function readBundle(path) {
  const bytes = readFileSync(path);
  return parseSchemaFile(path, (path.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8")).bundle;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Wall-clock milliseconds of a whole child process, median of `times` runs after one warm-up. */
export function timeProcess(args, times, env = {}) {
  const run = () => execFileSync(process.execPath, args, { stdio: "ignore", env: { ...process.env, ...env } });
  run();
  const samples = [];
  for (let i = 0; i < times; i++) {
    const start = process.hrtime.bigint();
    run();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

/** Milliseconds of an async function, median of `times` runs after one warm-up. */
export async function timeAsync(fn, times) {
  await fn();
  const samples = [];
  for (let i = 0; i < times; i++) {
    const start = process.hrtime.bigint();
    await fn();
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

/**
 * Microseconds per call of `ours` and `peer`, measured in alternating rounds so that
 * both see the same machine state; the ratio is the median of the per-round ratios.
 * `sync`: both are synchronous and called without `await`, whose tens of nanoseconds would
 * otherwise be a large part of a sub-microsecond call.
 */
export async function comparePerCall(ours, peer, iterations, rounds = 15, { sync = false } = {}) {
  const block = async (fn) => {
    const start = process.hrtime.bigint();
    if (sync) for (let i = 0; i < iterations; i++) fn();
    else for (let i = 0; i < iterations; i++) await fn();
    return Number(process.hrtime.bigint() - start) / 1e3 / iterations;
  };
  await block(ours);
  await block(peer);
  const a = [];
  const b = [];
  const ratios = [];
  for (let round = 0; round < rounds; round++) {
    const x = await block(ours);
    const y = await block(peer);
    a.push(x);
    b.push(y);
    ratios.push(x / y);
  }
  return { ours: median(a), peer: median(b), ratio: median(ratios) };
}

export function report(name, ours, theirs, peerName, target, unit = "ms", ratio = ours / theirs) {
  const verdict = ratio <= target ? "meets" : "MISSES";
  const digits = unit === "µs" ? 1 : 0;
  console.log(
    `${name}: ${ours.toFixed(digits)} ${unit} vs ${peerName} ${theirs.toFixed(digits)} ${unit}, ratio ${ratio.toFixed(2)} (target ≤ ${target}: ${verdict})`,
  );
}

/** An in-process upstream server with the example inventory's get_stock shape; returns the client's side of the transport. */
export function inMemoryInventory() {
  const server = new McpServer({ name: "bench", version: "1.0.0" });
  const value = { sku: "SKU-1", name: "Espresso beans 1 kg", quantity: 42, warehouse: "north", status: "in_stock" };
  server.registerTool("get_stock", { inputSchema: z.object({}) }, async () => ({
    content: [{ type: "text", text: JSON.stringify(value) }],
    structuredContent: value,
  }));
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  void server.connect(serverSide);
  return client;
}

/**
 * The three reference servers (server-everything, -filesystem on `work`, -memory) as command
 * lines, the arguments of a `pmcp schema export` of all three with the CLI at `cli`, and the
 * environment both need (the memory server's file in `work`).
 */
export function referenceExport(cli, work) {
  const main = (name) => join(dirname(require.resolve(`@modelcontextprotocol/${name}/package.json`)), "dist/index.js");
  const servers = [
    [process.execPath, main("server-everything")],
    [process.execPath, main("server-filesystem"), work],
    [process.execPath, main("server-memory")],
  ];
  const args = [
    cli,
    "schema",
    "export",
    "--quiet",
    "-o",
    join(work, "bundle.json"),
    ...servers.flatMap((words) => ["--stdio", words.map((word) => JSON.stringify(word)).join(" ")]),
  ];
  return { servers, args, env: { MEMORY_FILE_PATH: join(work, "memory.jsonl") } };
}

/** Wall-clock time in ms, comparable across processes (performance.timeOrigin + now). */
export const now = () => performance.timeOrigin + performance.now();

/** Resolves with the time `module` in `folder` first holds `text`, seen through the folder's change events. */
export function whenWritten(folder, module, text) {
  return new Promise((resolve) => {
    const check = async () => {
      const seen = now();
      const content = await readFile(join(folder, module), "utf8").catch(() => "");
      if (content.includes(text)) {
        watcher.close();
        resolve(seen);
      }
    };
    const watcher = watch(folder, () => void check());
    void check();
  });
}

/** Polls `check` every 20 ms until it returns a truthy value, and returns that. */
export async function until(check) {
  for (;;) {
    const value = await check();
    if (value) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
