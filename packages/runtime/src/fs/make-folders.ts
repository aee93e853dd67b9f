import { mkdir } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * `mkdir -p`. Node's own `mkdir(path, { recursive: true })` never settles on a path whose
 * parent exists but refuses new entries with ENOENT (`/proc/x/y` on Linux): it creates the
 * parent, tries again and loops. This tries each folder once after its parent exists.
 */
export async function makeFolders(folder: string): Promise<void> {
  try {
    await mkdir(folder);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return;
    const parent = dirname(folder);
    if (code !== "ENOENT" || parent === folder) throw error;
    await makeFolders(parent);
    await mkdir(folder).catch((again: NodeJS.ErrnoException) => {
      if (again.code !== "EEXIST") throw again;
    });
  }
}
