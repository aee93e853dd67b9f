import { mkdir, writeFile } from "node:fs/promises";
import { createConnection } from "node:net";
import { join, relative, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { inject } from "vitest";
import { ROOT } from "./cli.js";

/** Generated code must live inside the repo so that "zod" and "@pmcp-codegen/runtime" resolve. */
export const OUTPUT_ROOT = fileURLToPath(new URL("../.output/", import.meta.url));

export async function outputDir(name: string): Promise<string> {
  const dir = join(OUTPUT_ROOT, `${name}-${process.pid}-${Date.now()}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

/**
 * The time a test that runs the compiler may take. tsc is all CPU: beside the suite's other work on two
 * cores, or a busy loop, a check of a few seconds idle takes many times that, so such a test gets a
 * budget of its own instead of the default 60 s.
 */
export const COMPILE_BUDGET_MS = 300_000;

export type ModuleMode = "nodenext" | "bundler";

/**
 * Type-checks files as a strict user project would: `strict`, `noUncheckedIndexedAccess`,
 * `exactOptionalPropertyTypes`, `noUnusedLocals`, with nodenext or bundler resolution.
 * One compiler run for all files, from a tsconfig written into `dir`; with `emitTo`, the
 * JavaScript is written there, laid out as under `dir`. Resolves with the compiler's
 * diagnostics ("" when clean).
 */
export async function typecheck(dir: string, files: readonly string[], mode: ModuleMode, emitTo?: string): Promise<string> {
  const config = join(dir, `tsconfig.${mode}.json`);
  await writeFile(
    config,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "es2022",
        module: mode === "nodenext" ? "nodenext" : "esnext",
        moduleResolution: mode,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        noUnusedLocals: true,
        skipLibCheck: true,
        types: [],
        ...(emitTo === undefined ? { noEmit: true } : { rootDir: dir, outDir: emitTo }),
      },
      files,
    }),
  );
  return compileWithService(config);
}

/** `tsc -p config --pretty false`'s output, from the suite's compiler (compile-server.mjs). */
function compileWithService(config: string): Promise<string> {
  const socket = inject("compileService");
  if (socket === undefined)
    throw new Error("the suite's compiler runs only in the integration and toolchains projects, whose global setup starts it");
  return new Promise((done, fail) => {
    const connection = createConnection(socket);
    const lines = createInterface({ input: connection, crlfDelay: Number.POSITIVE_INFINITY });
    lines.once("line", (line) => {
      connection.end();
      done((JSON.parse(line) as { output: string }).output);
    });
    connection.once("error", fail);
    connection.write(`${JSON.stringify({ config })}\n`);
  });
}

/**
 * Type-checks many cases as `typecheck` does, in one compiler run: each case's files lie in the
 * folder of `root` named by its key, and each case gets the diagnostics of the files in its folder
 * ("" when clean), so it fails on its own. A diagnostic of no case's folder (a compiler option, a
 * shared module) goes to every case. With `emitTo`, the JavaScript is written there. One
 * program instead of one per case pays the compiler's start and the runtime's and zod's
 * declarations once.
 */
export async function typecheckCases<Name extends string>(
  root: string,
  cases: Readonly<Record<Name, readonly string[]>>,
  mode: ModuleMode,
  emitTo?: string,
): Promise<Record<Name, string>> {
  const names = Object.keys(cases) as Name[];
  const output = await typecheck(root, Object.values<readonly string[]>(cases).flat(), mode, emitTo);
  const found = new Map<Name, string[]>(names.map((name) => [name, []]));
  // Each diagnostic starts a line (`file(line,col): error TS…` or `error TS…`); its details are indented.
  for (const diagnostic of output === "" ? [] : output.split(/\n(?=\S)/)) {
    const file = /^(.+?)\(\d+,\d+\): /.exec(diagnostic)?.[1];
    const owner = file === undefined ? undefined : names.find((name) => !relative(join(root, name), resolve(ROOT, file)).startsWith(".."));
    for (const name of owner === undefined ? names : [owner]) found.get(name)!.push(diagnostic);
  }
  return Object.fromEntries(names.map((name) => [name, found.get(name)!.join("\n")])) as Record<Name, string>;
}
