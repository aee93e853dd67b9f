import { mkdir, writeFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type FromSourceResult, toolsFromSource } from "../../src/tools/from-source.js";

const OUTPUT = fileURLToPath(new URL(`../.output/tools-from-source-${process.pid}/`, import.meta.url));

export type ReadModule = FromSourceResult & { path: string; file: string; lineOf: (marker: string) => number };

/** Writes a module under test/.output/ (inside the repo, so the repo's tsconfig applies) and reads it. */
export async function fromSource(name: string, text: string): Promise<ReadModule> {
  await mkdir(OUTPUT, { recursive: true });
  const path = join(OUTPUT, name);
  await writeFile(path, text);
  const lines = text.split("\n");
  const lineOf = (marker: string): number => {
    const index = lines.findIndex((line) => line.includes(marker));
    if (index === -1) throw new Error(`marker ${marker} not in ${name}`);
    return index + 1;
  };
  return { ...toolsFromSource(path), path, file: relative(process.cwd(), path).split("\\").join("/"), lineOf };
}
