import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import { expect } from "vitest";
import { ROOT } from "./cli.js";

/** Runs a command in the repository, with `env` added to this process's. */
export function run(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd: ROOT, env: { ...process.env, ...env }, timeout: 120_000 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr });
    });
  });
}

/**
 * Imports `specifier` in a fresh Node process and reports every module the ESM loader
 * resolved, every file CommonJS required (`required`, which the ESM hook never sees), and
 * whether Node's child_process module got loaded: what importing it costs, before any call.
 */
export async function loadedBy(specifier: string): Promise<{ urls: string[]; required: string[]; childProcess: boolean }> {
  const dir = await mkdtemp(join(tmpdir(), "pmcp-graph-"));
  const log = join(dir, "resolved.log");
  await writeFile(
    join(dir, "hooks.mjs"),
    `import { appendFileSync } from "node:fs";
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context);
  appendFileSync(${JSON.stringify(log)}, result.url + "\\n");
  return result;
}`,
  );
  // In-thread hooks where Node has them (22.15 and later): Node 26 deprecates register() (DEP0205), and its
  // warning on stderr would fail every caller.
  await writeFile(
    join(dir, "register.mjs"),
    `import module from "node:module";
import { appendFileSync } from "node:fs";
if (module.registerHooks === undefined) module.register(${JSON.stringify(pathToFileURL(join(dir, "hooks.mjs")).href)});
else module.registerHooks({
  resolve(specifier, context, next) {
    const result = next(specifier, context);
    appendFileSync(${JSON.stringify(log)}, result.url + "\\n");
    return result;
  },
});`,
  );
  const probe = [
    `await import(${JSON.stringify(specifier)});`,
    'const { createRequire } = await import("node:module");',
    "const required = Object.keys(createRequire(import.meta.url).cache);",
    'console.log(JSON.stringify({ childProcess: process.moduleLoadList.includes("NativeModule child_process"), required }));',
  ].join("\n");
  const result = await run(process.execPath, [
    "--import",
    pathToFileURL(join(dir, "register.mjs")).href,
    "--input-type=module",
    "-e",
    probe,
  ]);
  expect(result.stderr).toBe("");
  const urls = [...new Set((await readFile(log, "utf8")).split("\n").filter((line) => line !== ""))].sort();
  const { childProcess, required } = JSON.parse(result.stdout) as { childProcess: boolean; required: string[] };
  return { urls, required: required.sort(), childProcess };
}

export function packageOf(path: string): string {
  const parts = relative(join(ROOT, "node_modules"), path).split("/");
  return parts[0]!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!;
}
