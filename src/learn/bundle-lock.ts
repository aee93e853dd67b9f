import { lockForReplace } from "@pmcp-codegen/runtime/internal/lock";
import { PmcpError } from "../errors.js";
import { systemReason } from "../files/system-reason.js";

/**
 * Runs `work` holding the one lock of a bundle file, which every process that rewrites a bundle
 * takes (`serve exec --learn`, `schema infer`, `dev`): each re-reads the file under it and merges
 * what it learned into what is there, so that no writer's blocks are lost to another's write.
 * The lock of the observation logs too (lockForReplace), beside the file. A bundle whose folder is
 * not there yet has nothing to lose: `work` then runs unlocked.
 */
export async function withBundleLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  let release: (() => Promise<void>) | undefined;
  try {
    // A lock lost mid-write costs at most one round of learned blocks, which the next round writes again.
    release = await lockForReplace(await import("proper-lockfile"), path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT") {
      const reason = code === "ELOCKED" ? "another process held its lock throughout" : systemReason(error as NodeJS.ErrnoException);
      throw new PmcpError("IO_FAILED", `${path}: ${reason}`, { cause: error });
    }
  }
  try {
    return await work();
  } finally {
    await release?.();
  }
}
