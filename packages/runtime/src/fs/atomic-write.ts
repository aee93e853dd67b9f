import { randomBytes } from "node:crypto";
import { mkdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

export interface FileToWrite {
  path: string;
  content: string;
}

/**
 * Writes every file to a temp sibling first and renames only once all of them are
 * written, so a failure part-way leaves the previous files as they were.
 */
export async function writeFilesAtomically(files: readonly FileToWrite[]): Promise<void> {
  const staged = files.map((file) => ({
    ...file,
    temp: join(dirname(file.path), `.${basename(file.path)}.${randomBytes(6).toString("hex")}.tmp`),
  }));
  try {
    await Promise.all([...new Set(staged.map((file) => dirname(file.path)))].map((dir) => mkdir(dir, { recursive: true })));
    // All at once (a hundred modules one by one is mostly waiting), but settled before any cleanup,
    // so that no write still in flight can leave a temp file behind.
    const written = await Promise.allSettled(staged.map(({ temp, content }) => writeFile(temp, content, "utf8")));
    const failed = written.find((result) => result.status === "rejected");
    if (failed !== undefined) throw failed.reason;
    for (const { temp, path } of staged) await rename(temp, path);
  } catch (error) {
    await Promise.all(staged.map(({ temp }) => rm(temp, { force: true })));
    throw error;
  }
}
