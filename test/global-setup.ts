import { type ChildProcessByStdio, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import type { TestProject } from "vitest/node";
import { exportAllServers, ROOT } from "./helpers/cli.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** One export of the fixture and reference servers, shared read-only by the tests that need a real corpus. */
    referenceBundle: string;
    /** The Unix socket of the suite's compiler (helpers/compile-server.mjs), which runs tsc for every test file. */
    compileService: string;
  }
}

/** What the setup starts: the reference servers' bundle and the suite's compiler, with the way to stop them. */
interface Suite {
  bundle: string;
  socket: string;
  stop(): Promise<void>;
}

/**
 * The suite, once for every project that names this file (integration and toolchains): vitest runs a
 * project's global setup for each project, in this one process, and a second export of the reference
 * servers and a second compiler would only repeat the first. The last project's teardown stops it.
 */
const shared = globalThis as typeof globalThis & { pmcpSuite?: { started: Promise<Suite>; projects: number } | undefined };

/**
 * Runs once before all the test files: fails fast when `dist/` is older than its sources (the CLI
 * tests run `dist/`, and would test yesterday's code), then exports the reference servers once and
 * starts the suite's compiler.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  shared.pmcpSuite ??= { started: startSuite(), projects: 0 };
  const suite = shared.pmcpSuite;
  suite.projects++;
  const { bundle, socket } = await suite.started;
  project.provide("referenceBundle", bundle);
  project.provide("compileService", socket);
  return async () => {
    if (--suite.projects > 0) return;
    shared.pmcpSuite = undefined;
    await (await suite.started).stop();
  };
}

async function startSuite(): Promise<Suite> {
  await assertBuilt();
  await removeEarlierOutputs();
  const dir = await mkdtemp(join(tmpdir(), "pmcp-reference-"));
  const bundle = join(dir, "bundle.json");
  const socket = join(dir, "compile.sock");
  const [exported, compiler] = await Promise.all([exportAllServers(dir, bundle), startCompiler(socket)]);
  if (exported.code !== 0) throw new Error(`exporting the reference servers failed: ${exported.stderr}`);
  return {
    bundle,
    socket,
    async stop() {
      compiler.stdin.end();
      if (compiler.exitCode === null) await once(compiler, "exit");
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Starts helpers/compile-server.mjs on `socket`; resolves once it listens. */
async function startCompiler(socket: string): Promise<ChildProcessByStdio<Writable, Readable, null>> {
  const compiler = spawn(process.execPath, [join(ROOT, "test/helpers/compile-server.mjs"), socket], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  const [line] = (await Promise.race([once(createInterface({ input: compiler.stdout }), "line"), once(compiler, "exit")])) as [unknown];
  if (line !== "ready") throw new Error(`the suite's compiler did not start (exit ${String(line)})`);
  return compiler;
}

/** Longer than a run takes on a loaded machine: what a run beside this one writes is left alone. */
const EARLIER_RUN_MS = 60 * 60_000;

/**
 * The generated projects of earlier runs (a run writes a hundred megabytes there): each run's stay for a
 * look until a run an hour later starts. The Rust build cache stays; it makes the next run's builds quick.
 */
async function removeEarlierOutputs(): Promise<void> {
  const outputs = join(ROOT, "test/.output");
  const entries = await readdir(outputs).catch(() => []);
  await Promise.all(
    entries.map(async (name) => {
      const modified = (await stat(join(outputs, name)).catch(() => undefined))?.mtimeMs;
      if (name === "cargo-target" || modified === undefined || Date.now() - modified < EARLIER_RUN_MS) return;
      await rm(join(outputs, name), { recursive: true, force: true });
    }),
  );
}

async function assertBuilt(): Promise<void> {
  for (const [src, dist] of [
    ["src", "dist"],
    ["packages/runtime/src", "packages/runtime/dist"],
    // The pmcp binary bundles both (scripts/bundle-cli.mjs).
    ["dist", "dist/bin"],
    ["packages/runtime/dist", "dist/bin"],
  ]) {
    const source = await newest(join(ROOT, src!));
    const built = await newest(join(ROOT, dist!));
    if (built === undefined || (source !== undefined && source.time > built.time)) {
      throw new Error(`${dist}/ is older than ${source?.path ?? `${src}/`}: run npm run build first (the CLI tests run the built code)`);
    }
  }
}

/**
 * The most recently modified file under a folder. Not tsc's build info: the type check that runs
 * beside the suite (scripts/test.mjs) rewrites it, and nothing is built from it.
 */
async function newest(dir: string): Promise<{ path: string; time: number } | undefined> {
  let found: { path: string; time: number } | undefined;
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (!entry.isFile() || entry.name.endsWith(".tsbuildinfo")) continue;
    const path = join(entry.parentPath, entry.name);
    const time = (await stat(path)).mtimeMs;
    if (found === undefined || time > found.time) found = { path: path.slice(ROOT.length), time };
  }
  return found;
}
