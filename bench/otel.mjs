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
import { z } from "zod";
import { CompositionClient } from "../dist/runtime/index.js";
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
 * Microseconds of CPU per call of `ours` and `peer` (this process's user + system time: the
 * in-memory server runs here too, and time spent waiting for a core on a loaded machine is left
 * out), in rounds that alternate which goes first; the ratio is the median of the rounds' ratios.
 */
async function comparePerCall(ours, peer, iterations, rounds) {
  const block = async (fn) => {
    const start = process.cpuUsage();
    for (let i = 0; i < iterations; i++) await fn();
    const used = process.cpuUsage(start);
    return (used.user + used.system) / iterations;
  };
  await block(ours);
  await block(peer);
  const a = [];
  const b = [];
  const ratios = [];
  for (let round = 0; round < rounds; round++) {
    let x;
    let y;
    if (round % 2 === 0) {
      x = await block(ours);
      y = await block(peer);
    } else {
      y = await block(peer);
      x = await block(ours);
    }
    a.push(x);
    b.push(y);
    ratios.push(x / y);
  }
  return { ours: median(a), peer: median(b), ratio: median(ratios) };
}

/** Prints a comparison; with no target (A/A, the SDK's cost) the ratio is reported as it is. */
function print(name, result, peerName, target) {
  if (target !== undefined) return report(name, result.ours, result.peer, peerName, target, "µs", result.ratio);
  console.log(`${name}: ${result.ours.toFixed(1)} µs vs ${peerName} ${result.peer.toFixed(1)} µs, ratio ${result.ratio.toFixed(2)}`);
}

async function compare(label, Ours, Before, peerName, target) {
  const ours = new Ours({ servers: {}, transports: { inventory: inMemoryInventory } });
  const before = new Before({ servers: {}, transports: { inventory: inMemoryInventory } });
  const call = (client) => () => client.callTool({ server: "inventory", tool: "get_stock", args: { sku: "SKU-1" }, parse: Item });
  const memory = await comparePerCall(call(ours), call(before), 2000, 31);
  print(`${label}, in memory`, memory, peerName, target);
  await Promise.all([ours.close(), before.close()]);

  const servers = { typed: { command: process.execPath, args: [TYPED_SERVER] } };
  const oursStdio = new Ours({ servers });
  const beforeStdio = new Before({ servers });
  const stdioCall = (client) => () => client.callTool({ server: "typed", tool: "get_stock", args: { sku: "SKU-1" }, parse: Stock });
  const stdio = await comparePerCall(stdioCall(oursStdio), stdioCall(beforeStdio), 300, 41);
  print(`${label}, over stdio`, stdio, peerName, target);
  await Promise.all([oursStdio.close(), beforeStdio.close()]);
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
    // The noise floor of this machine now: the runtime before against itself.
    await compare(
      "A/A: the runtime before OpenTelemetry against itself (CPU µs per call)",
      before.CompositionClient,
      before.CompositionClient,
      peer,
    );
    await compare(
      "call with @opentelemetry/api and no SDK registered (CPU µs per call)",
      CompositionClient,
      before.CompositionClient,
      peer,
      1.02,
    );

    const noopExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
    const tracerProvider = new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(noopExporter)] });
    tracerProvider.register();
    const meterProvider = new MeterProvider({ readers: [new NoopReader()] });
    metrics.setGlobalMeterProvider(meterProvider);
    // No target: what recording every span and duration costs, reported as it is.
    await compare(
      "call with the Node SDK registered: spans and histogram, no-op exporter (CPU µs per call)",
      CompositionClient,
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
