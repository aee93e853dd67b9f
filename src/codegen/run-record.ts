import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { hash } from "./hash.js";
import type { GenerateWarning } from "./plan.js";
import type { ReuseCache } from "./reuse-cache.js";

/**
 * What the last finished `pmcp generate` into a folder was made from and what it left there,
 * kept in the reuse cache. A re-run whose inputs (schema files' bytes, options, templates,
 * generator) hash the same, into a folder whose generated files nobody touched since, is done
 * before the bundle is even parsed: for a 12 MB bundle, parsing and validating it is most of the run.
 */
export interface RunRecord {
  key: string;
  /** Every `.ts` file in the folder after the run, with what `stat` said of it then. */
  files: FileStamp[];
  servers: string[];
  tools: number;
  warnings: GenerateWarning[];
}

interface FileStamp {
  name: string;
  size: number;
  mtimeMs: number;
  ino: number;
}

/** The key of a run: `inputs` are the options that shape the output; schema files are hashed by content. */
export async function runKey(cache: ReuseCache, schemaFiles: readonly string[], inputs: unknown): Promise<string> {
  const contents = await Promise.all(schemaFiles.map(async (path) => [resolve(path), hash(await readFile(path))]));
  return cache.key(["run", contents, inputs]);
}

/** The record of the last run into `outDir`, if it had `key` and every file it left is still as it left it. */
export async function unchangedRun(cache: ReuseCache, outDir: string, key: string): Promise<RunRecord | undefined> {
  const text = await cache.read(recordName(outDir));
  if (text === undefined) return undefined;
  let record: RunRecord;
  try {
    record = JSON.parse(text) as RunRecord;
  } catch {
    return undefined;
  }
  if (record.key !== key || !Array.isArray(record.files)) return undefined;
  const now = await stamps(outDir);
  return now !== undefined && JSON.stringify(now) === JSON.stringify(record.files) ? record : undefined;
}

/** Records a finished run; one that cannot be recorded only costs the next run its shortcut. */
export async function rememberRun(cache: ReuseCache, outDir: string, record: Omit<RunRecord, "files">): Promise<void> {
  const files = await stamps(outDir);
  if (files !== undefined) await cache.write(recordName(outDir), JSON.stringify({ ...record, files } satisfies RunRecord));
}

function recordName(outDir: string): string {
  return join("runs", `${hash(resolve(outDir))}.json`);
}

/** The folder's `.ts` files by name, size, modification time and inode (an editor's save-by-rename changes it). */
async function stamps(outDir: string): Promise<FileStamp[] | undefined> {
  const names = await readdir(outDir).catch(() => undefined);
  if (names === undefined) return undefined;
  return Promise.all(
    names
      .filter((name) => name.endsWith(".ts"))
      .sort()
      .map(async (name) => {
        const info = await stat(join(outDir, name));
        return { name, size: info.size, mtimeMs: info.mtimeMs, ino: info.ino };
      }),
  );
}
