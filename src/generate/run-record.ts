import { readdir, readFile, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import type { QualitySummary } from "../bundle/quality-summary.js";
import type { ReuseCache } from "../cache/reuse-cache.js";
import { hash } from "../codegen/hash.js";
import type { GenerateWarning } from "../codegen/server-plan.js";

/**
 * What the last finished `pmcp generate` into a folder was made from and what it left there,
 * kept in the reuse cache, one per folder and language. A re-run with the same options, templates and
 * generator, whose schema files hold the same bytes, into a folder whose modules (`.ts`, or `.rs` for
 * Rust) nobody touched since, is done before the bundle is even parsed: for a 12 MB bundle, parsing and validating it is most of the run.
 */
export interface RunRecord {
  /** Options, templates and generator. */
  key: string;
  inputs: InputStamp[];
  /** Every file of the run's extension in the folder after the run. */
  files: FileStamp[];
  servers: string[];
  tools: number;
  warnings: GenerateWarning[];
  /** What `pmcp generate` prints about the run's tools, kept so a re-run can print it without the bundle. */
  quality: QualitySummary;
}

interface FileStamp {
  name: string;
  size: number;
  mtimeMs: number;
  /** An editor's save-by-rename keeps size and time apart from the old file only by inode. */
  ino: number;
}

/** A schema file by content digest, and by `stat` so that an untouched file need not be read (as git's index does). */
export interface InputStamp extends FileStamp {
  digest: string;
}

/**
 * The record of the last run into `outDir` writing `extension` files, if it had `key`, read the same
 * bytes and left every such file as it is now.
 */
export async function unchangedRun(
  cache: ReuseCache,
  outDir: string,
  extension: string,
  key: string,
  schemaFiles: readonly string[],
): Promise<RunRecord | undefined> {
  const text = await cache.read(recordName(outDir, extension));
  if (text === undefined) return undefined;
  let record: RunRecord;
  try {
    record = JSON.parse(text) as RunRecord;
  } catch {
    return undefined;
  }
  if (record.key !== key || !Array.isArray(record.files) || !Array.isArray(record.inputs) || record.quality === undefined) return undefined;
  if (record.inputs.length !== schemaFiles.length) return undefined;
  const now = await outputStamps(outDir, extension);
  if (now === undefined || JSON.stringify(now) !== JSON.stringify(record.files)) return undefined;
  const same = await Promise.all(schemaFiles.map((path, index) => sameInput(path, record.inputs[index]!)));
  return same.every(Boolean) ? record : undefined;
}

/** The schema files as a run is about to read them: stamped before, so a change during the run is seen next time. */
export function stampInputs(schemaFiles: readonly string[]): Promise<InputStamp[]> {
  return Promise.all(schemaFiles.map(inputStamp));
}

/** Records a finished run; one that cannot be recorded only costs the next run its shortcut. */
export async function rememberRun(cache: ReuseCache, outDir: string, extension: string, record: Omit<RunRecord, "files">): Promise<void> {
  const files = await outputStamps(outDir, extension);
  if (files !== undefined)
    await cache.write([{ name: recordName(outDir, extension), content: JSON.stringify({ ...record, files } satisfies RunRecord) }]);
}

/** TypeScript and Rust clients in one folder are two runs, neither of which undoes the other's record. */
function recordName(outDir: string, extension: string): string {
  return join("runs", `${hash(`${resolve(outDir)}\0${extension}`)}.json`);
}

async function sameInput(path: string, recorded: InputStamp): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined || resolve(path) !== recorded.name || info.size !== recorded.size) return false;
  if (info.mtimeMs === recorded.mtimeMs && info.ino === recorded.ino) return true;
  // Touched, or rewritten with the same bytes (a fresh checkout): the content decides.
  return hash(await readFile(path)) === recorded.digest;
}

async function inputStamp(path: string): Promise<InputStamp> {
  const [info, content] = await Promise.all([stat(path), readFile(path)]);
  return { name: resolve(path), size: info.size, mtimeMs: info.mtimeMs, ino: info.ino, digest: hash(content) };
}

async function outputStamps(outDir: string, extension: string): Promise<FileStamp[] | undefined> {
  const names = await readdir(outDir).catch(() => undefined);
  if (names === undefined) return undefined;
  return Promise.all(
    names
      .filter((name) => name.endsWith(extension))
      .sort()
      .map(async (name) => {
        const info = await stat(join(outDir, name));
        return { name, size: info.size, mtimeMs: info.mtimeMs, ino: info.ino };
      }),
  );
}
