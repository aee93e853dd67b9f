// What OpenTelemetry costs a call: the runtime of the commit before it came (built from git here,
// so both are measured in this run) against this one with the API alone, then with the SDK
// registered and a no-op exporter; in memory (where the runtime's own work shows most) and over stdio.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm, symlink } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { context, metrics, propagation, trace } from "@opentelemetry/api";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { NodeTracerProvider, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { CompositionClient } from "@pmcp-codegen/runtime";
import { z } from "zod";
import { inMemoryInventory, median, report } from "./lib.mjs";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const TYPED_SERVER = join(ROOT, "test/fixtures/typed-server.mjs");
const Stock = z.object({ sku: z.string(), quantity: z.number(), location: z.tuple([z.number(), z.number()]).nullable() });
const Item = z.object({ sku: z.string(), name: z.string(), quantity: z.number(), warehouse: z.string(), status: z.string() });

/** The commit whose child added the telemetry module: the runtime as it was before. */
function baseCommit() {
  const added = execFileSync("git", ["log", "--diff-filter=A", "--format=%H", "--", "packages/runtime/src/telemetry.ts"], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .at(-1);
  return execFileSync("git", ["rev-parse", `${added}^`], { cwd: ROOT, encoding: "utf8" }).trim();
}

/** Builds that commit's runtime in a scratch folder that resolves packages from this checkout. */
async function buildBefore(commit) {
  const dir = await mkdtemp(join(tmpdir(), "pmcp-bench-otel-"));
  execFileSync("sh", ["-c", `git archive ${commit} packages/runtime | tar -x -C "${dir}"`], { cwd: ROOT });
  await symlink(join(ROOT, "node_modules"), join(dir, "node_modules"), "dir");
  execFileSync(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", join(dir, "packages/runtime")], { cwd: ROOT });
  const module = await import(pathToFileURL(join(dir, "packages/runtime/dist/index.js")).href);
  return { CompositionClient: module.CompositionClient, dir };
}

/**
 * CPU microseconds per call (this process's user + system time: the in-memory server runs here
 * too, and time spent waiting for a core on a loaded machine is left out) of `ours`, `peer` and a
 * second `peer` client, in many short rounds that rotate which goes first. The ratios are the
 * medians of the rounds' ratios; peer against peer (A/A) is the noise floor of the same rounds.
 */
async function comparePerCall(ours, peer, again, iterations, rounds) {
  const block = async (fn) => {
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) await fn();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / iterations;
  };
  for (const fn of [ours, peer, again]) await block(fn);
  const times = { ours: [], peer: [], again: [] };
  const ratios = [];
  const floor = [];
  for (let round = 0; round < rounds; round++) {
    const order = [
      ["ours", ours],
      ["peer", peer],
      ["again", again],
    ];
    for (let shift = 0; shift < round % 3; shift++) order.push(order.shift());
    const took = {};
    for (const [name, fn] of order) took[name] = await block(fn);
    for (const name of Object.keys(times)) times[name].push(took[name]);
    ratios.push(took.ours / took.peer);
    floor.push(took.again / took.peer);
  }
  return { ours: median(times.ours), peer: median(times.peer), ratio: median(ratios), floor: median(floor) };
}

/** Prints a comparison, with the A/A ratio of the same rounds; with no target the ratio is reported as it is. */
function print(name, result, peerName, target) {
  const floor = `(A/A of the same rounds: ${result.floor.toFixed(3)})`;
  if (target !== undefined) {
    report(name, result.ours, result.peer, peerName, target, "µs", result.ratio);
    return console.log(`  ratio ${result.ratio.toFixed(3)} ${floor}`);
  }
  console.log(
    `${name}: ${result.ours.toFixed(1)} µs vs ${peerName} ${result.peer.toFixed(1)} µs, ratio ${result.ratio.toFixed(2)} ${floor}`,
  );
}

async function compare(label, Before, peerName, target) {
  const inMemory = (Client) => new Client({ servers: {}, transports: { inventory: inMemoryInventory } });
  const memoryClients = [inMemory(CompositionClient), inMemory(Before), inMemory(Before)];
  const call = (client) => () => client.callTool({ server: "inventory", tool: "get_stock", args: { sku: "SKU-1" }, parse: Item });
  const memory = await comparePerCall(...memoryClients.map(call), 500, 101);
  print(`${label}, in memory`, memory, peerName, target);
  await Promise.all(memoryClients.map((client) => client.close()));

  const servers = { typed: { command: process.execPath, args: [TYPED_SERVER] } };
  const stdioClients = [new CompositionClient({ servers }), new Before({ servers }), new Before({ servers })];
  const stdioCall = (client) => () => client.callTool({ server: "typed", tool: "get_stock", args: { sku: "SKU-1" }, parse: Stock });
  const stdio = await comparePerCall(...stdioClients.map(stdioCall), 200, 61);
  print(`${label}, over stdio`, stdio, peerName, target);
  await Promise.all(stdioClients.map((client) => client.close()));
}

class NoopReader extends MetricReader {
  async onForceFlush() {}
  async onShutdown() {}
}

export async function benchOtel() {
  const commit = baseCommit();
  const before = await buildBefore(commit);
  try {
    const peer = `the runtime before OpenTelemetry (${commit.slice(0, 7)})`;
    await compare("call with @opentelemetry/api and no SDK registered (CPU µs per call)", before.CompositionClient, peer, 1.02);

    const noopExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
    const tracerProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(noopExporter)] });
    tracerProvider.register();
    const meterProvider = new MeterProvider({ readers: [new NoopReader()] });
    metrics.setGlobalMeterProvider(meterProvider);
    // No target: what recording every span and duration costs, reported as it is.
    await compare(
      "call with the Node SDK registered: spans and histogram, no-op exporter (CPU µs per call)",
      before.CompositionClient,
      peer,
    );
    // The benches after this one run without it.
    trace.disable();
    metrics.disable();
    propagation.disable();
    context.disable();
    await Promise.all([tracerProvider.shutdown(), meterProvider.shutdown()]);
  } finally {
    await rm(before.dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await benchOtel();
