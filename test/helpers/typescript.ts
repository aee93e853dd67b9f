import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ROOT } from "./cli.js";

/** Generated code must live inside the repo so that "zod" and "pmcp-codegen/runtime" resolve. */
export const OUTPUT_ROOT = fileURLToPath(new URL("../.output/", import.meta.url));

export async function outputDir(name: string): Promise<string> {
  const dir = join(OUTPUT_ROOT, `${name}-${process.pid}-${Date.now()}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

export type ModuleMode = "nodenext" | "bundler";

/**
 * Type-checks files as a strict user project would: `strict`, `noUncheckedIndexedAccess`,
 * `exactOptionalPropertyTypes`, `noUnusedLocals`, with nodenext or bundler resolution.
 * One compiler run for all files. Resolves with the compiler's diagnostics ("" when clean).
 */
export async function typecheck(dir: string, files: readonly string[], mode: ModuleMode): Promise<string> {
  const config = join(dir, `tsconfig.${mode}.json`);
  await writeFile(
    config,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "es2022",
        module: mode === "nodenext" ? "nodenext" : "esnext",
        moduleResolution: mode,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        noUnusedLocals: true,
        skipLibCheck: true,
        types: [],
      },
      files,
    }),
  );
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", config],
      { maxBuffer: 64 * 1024 * 1024 },
      (_error, stdout) => resolve(stdout.trim()),
    );
  });
}
