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
  const staged: { temp: string; path: string }[] = [];
  try {
    for (const file of files) {
      await mkdir(dirname(file.path), { recursive: true });
      const temp = join(dirname(file.path), `.${basename(file.path)}.${randomBytes(6).toString("hex")}.tmp`);
      staged.push({ temp, path: file.path });
      await writeFile(temp, file.content, "utf8");
    }
    for (const { temp, path } of staged) await rename(temp, path);
  } catch (error) {
    await Promise.all(staged.map(({ temp }) => rm(temp, { force: true })));
    throw error;
  }
}
