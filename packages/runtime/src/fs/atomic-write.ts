/**
 * @pmcp-codegen/runtime/internal/files: all-or-nothing writes, shared with pmcp-codegen; its own
 * subpath because it imports nothing but Node's modules and the errors' base, and a re-run with nothing to write only
 * needs removeStaleTempFiles.
 */

import { randomBytes } from "node:crypto";
import { renameSync, rmSync } from "node:fs";
import { chmod, lstat, readdir, readlink, realpath, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { BrandedError } from "../branded-error.js";
import { makeFolders } from "./make-folders.js";

export interface FileToWrite {
  path: string;
  content: string;
}

export interface WriteOptions {
  /** Files deleted in the same step as the renames, so that they go only if every file is written. */
  remove?: readonly string[];
}

/** A path that cannot take a file: a folder, a socket, a file where a folder must be. */
export class OutputPathError extends BrandedError {
  override readonly name = "OutputPathError";
  readonly code = "OUTPUT_PATH";

  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${path}: ${reason}`);
  }
}

/** Our temp files carry the writing process's id, so a later run can tell an abandoned one from one still being written. */
const TEMP_NAME = /^\..+\.pmcp-(\d+)-[0-9a-f]{12}\.tmp$/;
/** As the kernel's own limit for following links. */
const MAX_LINKS = 40;

/** Temp files written and not yet renamed, for `discardStagedFiles`. */
const staging = new Set<string>();
let discarded = false;

/**
 * Writes every file to a temp sibling first and renames only once all of them are written, so
 * a failure part-way leaves the previous files as they were. A symlink is written through to
 * its target (atomically there); a character device or FIFO (`/dev/null`, a pipe) is written
 * in place, since renaming over it would replace it; anything else that is not a regular file
 * is refused with an OutputPathError, and so is a read-only file; a file replaced keeps its
 * permissions. Abandoned temp files of earlier runs in the same folders
 * are removed.
 */
export async function writeFilesAtomically(files: readonly FileToWrite[], options: WriteOptions = {}): Promise<void> {
  const targets = await Promise.all(files.map(async (file) => ({ ...file, ...(await resolveTarget(file.path)) })));
  const replaced = targets.filter((file) => !file.inPlace);
  const folders = new Map(replaced.map((file) => [dirname(file.target), file.path]));
  await Promise.all([...folders].map(([folder, path]) => makeFolder(folder, path)));
  await Promise.all([...folders.keys()].map(removeStaleTempFiles));
  const staged = replaced.map((file) => ({
    ...file,
    temp: join(dirname(file.target), `.${basename(file.target)}.pmcp-${process.pid}-${randomBytes(6).toString("hex")}.tmp`),
  }));
  for (const { temp } of staged) staging.add(temp);
  try {
    // All at once (a hundred modules one by one is mostly waiting), but settled before any cleanup,
    // so that no write still in flight can leave a temp file behind.
    // The file replaced keeps its permissions: a rename would give it the temp file's, the umask's.
    const written = await Promise.allSettled(
      staged.map(async ({ temp, content, mode }) => {
        await writeFile(temp, content, "utf8");
        if (mode !== undefined) await chmod(temp, mode);
      }),
    );
    const failed = written.find((result) => result.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    for (const file of targets.filter((candidate) => candidate.inPlace)) await writeFile(file.target, file.content, "utf8");
    if (discarded) throw new Error("interrupted: the staged files were discarded");
    // Synchronous, so that no signal handler runs in between: a process that handles its signals
    // (as the pmcp CLI does) ends with all of the renames and removals done or none of them.
    for (const { temp, target } of staged) renameSync(temp, target);
    for (const path of options.remove ?? []) rmSync(path, { force: true });
  } catch (error) {
    await Promise.all(staged.map(({ temp }) => rm(temp, { force: true })));
    // A failure names the path the caller gave, not our temp file.
    const cause = error as NodeJS.ErrnoException;
    const named = staged.find((file) => file.temp === cause?.path);
    if (named !== undefined) cause.path = named.path;
    throw error;
  } finally {
    for (const { temp } of staged) staging.delete(temp);
  }
}

/**
 * Removes every temp file still being written, synchronously, and makes the writes in progress
 * fail instead of renaming: for a signal handler that is about to end the process.
 */
export function discardStagedFiles(): void {
  discarded = true;
  for (const temp of staging) rmSync(temp, { force: true });
  staging.clear();
}

/** Removes the temp files in `folder` that a process which no longer runs left behind (killed, or the machine stopped). */
export async function removeStaleTempFiles(folder: string): Promise<void> {
  const names = await readdir(folder).catch(() => [] as string[]);
  await Promise.all(
    names.map(async (name) => {
      const pid = TEMP_NAME.exec(name)?.[1];
      const path = join(folder, name);
      if (pid === undefined || staging.has(path)) return;
      // In a container, a later run often has the same pid as the one that left the file.
      if (Number(pid) === process.pid || !running(Number(pid))) await rm(path, { force: true });
    }),
  );
}

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Where the bytes for `path` go, through any symlinks, and whether they are written in place. */
async function resolveTarget(path: string): Promise<{ target: string; inPlace: boolean; mode?: number }> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "ENOTDIR") return undefined;
    if (error.code === "ELOOP") throw new OutputPathError(path, "too many levels of symbolic links");
    throw error;
  });
  if (info === undefined) return { target: await linkedPath(path), inPlace: false };
  if (info.isFile()) {
    // A file no one may write is one its owner keeps as it is (a checked-in copy, a locked release): replacing it would lose that.
    if ((info.mode & 0o222) === 0) throw new OutputPathError(path, "the file is read-only; not replacing it");
    return { target: await realpath(path), inPlace: false, mode: info.mode & 0o7777 };
  }
  // Opened by the name given: `/dev/fd/63` (bash's `>(...)`) links to a pipe no other name reaches.
  if (info.isCharacterDevice() || info.isFIFO()) return { target: path, inPlace: true };
  if (info.isDirectory()) throw new OutputPathError(path, "a folder is there, not a file");
  throw new OutputPathError(path, "neither a file, a device nor a FIFO is there");
}

/** Where a file that does not exist yet is created: at the end of a symlink that points nowhere yet, or at `path`. */
async function linkedPath(path: string): Promise<string> {
  let target = path;
  for (let links = 0; links < MAX_LINKS; links++) {
    const info = await lstat(target).catch(() => undefined);
    if (info === undefined || !info.isSymbolicLink()) return target;
    target = resolve(dirname(target), await readlink(target));
  }
  throw new OutputPathError(path, "too many levels of symbolic links");
}

async function makeFolder(folder: string, path: string): Promise<void> {
  try {
    await makeFolders(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "EEXIST" && code !== "ENOTDIR") throw error;
    let blocking = folder;
    for (let parent = dirname(folder); parent !== blocking; parent = dirname(parent)) {
      if ((await stat(parent).catch(() => undefined))?.isDirectory()) break;
      blocking = parent;
    }
    throw new OutputPathError(path, `${blocking} is a file, not a folder`);
  }
}
