import { REPLACE_LOCK } from "@pmcp-codegen/runtime/internal/files";
import { PmcpError } from "../errors.js";
import { systemReason } from "../files/system-reason.js";

/**
 * Runs `work` holding the one lock of a bundle file, which every process that rewrites a bundle
 * takes (`serve exec --learn`, `schema infer`, `dev`): each re-reads the file under it and merges
 * what it learned into what is there, so that no writer's blocks are lost to another's write.
 * proper-lockfile's lock beside the file, with the waits and stale time of the observation logs'.
 * A bundle not written yet has nothing to lose: `work` then runs unlocked.
 */
export async function withBundleLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const { lock } = await import("proper-lockfile");
  let release: (() => Promise<void>) | undefined;
  try {
    release = await lock(path, {
      ...REPLACE_LOCK,
      // A lock lost mid-write costs at most one round of learned blocks, which the next round writes again.
      onCompromised: () => {},
    });
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
