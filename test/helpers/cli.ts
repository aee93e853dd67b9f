import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
export const CLI = fileURLToPath(new URL("../../dist/cli/main.js", import.meta.url));
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
      "schema", "export", "-o", bundle, "--quiet",
      "--stdio", fixtureCommand("typed-server.mjs"),
      "--stdio", fixtureCommand("listing-server.mjs"),
      "--stdio", fixtureCommand("behaviour-server.mjs"),
      "--stdio", serverCommand("server-everything"),
      "--stdio", serverCommand("server-filesystem", dir),
      "--stdio", serverCommand("server-memory"),
    ],
    { env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
  );
}
