import { type ChildProcessWithoutNullStreams, execFile, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CLI = fileURLToPath(new URL("../../dist/bin/pmcp.js", import.meta.url));
export const FIXTURES = fileURLToPath(new URL("../fixtures/", import.meta.url));

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the built `pmcp` binary as a user would, in its own process. */
export function runCli(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/**
 * Runs the built CLI's `run` in this process, capturing what it writes: for the many
 * usage-error cases, and runs whose claim is the files and lines they write, which need no
 * process of their own. The working directory is this process's (the repository root), or
 * `cwd` for the run. Loaded by Node itself (require of an ES module, which has no top-level
 * await): through vitest's transform the CLI's modules took seconds of CPU per test file.
 */
export async function runInProcess(args: readonly string[], options: { cwd?: string } = {}): Promise<CliResult> {
  const { run } = require(join(ROOT, "dist/cli/program.js")) as {
    run: (argv: readonly string[]) => Promise<number>;
  };
  const stdout: string[] = [];
  const stderr: string[] = [];
  const capture = (stream: NodeJS.WriteStream, into: string[]) => {
    const original = stream.write;
    stream.write = ((chunk: string | Uint8Array) => {
      into.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
      return true;
    }) as typeof stream.write;
    return () => {
      stream.write = original;
    };
  };
  // yargs prints help and the version through console.log, which vitest takes over.
  const log = console.log;
  const error = console.error;
  console.log = (...parts: unknown[]) => void stdout.push(`${parts.join(" ")}\n`);
  console.error = (...parts: unknown[]) => void stderr.push(`${parts.join(" ")}\n`);
  const home = process.cwd();
  if (options.cwd !== undefined) process.chdir(options.cwd);
  const restore = [
    () => process.chdir(home),
    capture(process.stdout, stdout),
    capture(process.stderr, stderr),
    () => {
      console.log = log;
      console.error = error;
    },
  ];
  try {
    const code = await run(args);
    return { code, stdout: stdout.join(""), stderr: stderr.join("") };
  } finally {
    for (const undo of restore) undo();
  }
}

/** A `--stdio` command line that runs one of the fixture scripts with node. */
export function fixtureCommand(script: string, ...args: string[]): string {
  return [process.execPath, `${FIXTURES}${script}`, ...args].map((word) => JSON.stringify(word)).join(" ");
}

/** A `--stdio` command line for an installed reference server, spawned with node (never npx). */
export function serverCommand(name: string, ...args: string[]): string {
  const main = join(require.resolve(`@modelcontextprotocol/${name}/package.json`), "..", "dist/index.js");
  return [process.execPath, main, ...args].map((word) => JSON.stringify(word)).join(" ");
}

/**
 * Exports the fixture servers and the three reference servers into one bundle at `bundle`:
 * the shared corpus of the generator and lint tests. `dir` holds the filesystem root and memory file.
 */
export async function exportAllServers(dir: string, bundle: string): Promise<CliResult> {
  return runCli(
    [
      "schema",
      "export",
      "-o",
      bundle,
      "--quiet",
      "--stdio",
      fixtureCommand("typed-server.mjs"),
      "--stdio",
      fixtureCommand("listing-server.mjs"),
      "--stdio",
      fixtureCommand("behaviour-server.mjs"),
      "--stdio",
      serverCommand("server-everything"),
      "--stdio",
      serverCommand("server-filesystem", dir),
      "--stdio",
      serverCommand("server-memory"),
    ],
    { env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
  );
}

/** `pmcp serve <args>` over HTTP, once it says where it serves: the process and its URL (`http://127.0.0.1:<port>/mcp`). */
export function serveOverHttp(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<{ child: ChildProcessWithoutNullStreams; url: string }> {
  const child = spawn(process.execPath, [CLI, "serve", ...args], { cwd: options.cwd ?? ROOT, env: options.env ?? process.env });
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /^Serving \w+ on (http:\/\/\S+:\d+\/mcp)$/m.exec(stderr);
      if (match) resolve({ child, url: match[1]! });
    });
    child.once("exit", (code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
}
