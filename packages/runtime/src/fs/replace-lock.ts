/**
 * @pmcp-codegen/runtime/internal/lock: the lock of a file that several processes replace in turn
 * (an observation log, a bundle), shared with pmcp-codegen.
 */

import { readFile, rm, stat, writeFile } from "node:fs/promises";
import { hostname } from "node:os";

/**
 * What is used of proper-lockfile, an optional peer of the runtime: its types are not the runtime's
 * published declarations' to require.
 */
interface Lockfile {
  lock(
    path: string,
    options: { stale: number; retries: number; realpath: boolean; lockfilePath: string; onCompromised: (error: Error) => void },
  ): Promise<() => Promise<void>>;
}

/**
 * A lock older than 10 s belongs to a process that died holding it (proper-lockfile refreshes live
 * ones); a writer waits up to about 15 s for its turn.
 */
const STALE_MS = 10_000;
const WAIT_MS = 15_000;

/**
 * Takes the lock of `path` (proper-lockfile's folder `<path>.lock`), waiting for its holder. The
 * holder names itself in `<path>.lock-owner` (host and pid): a lock whose holder no longer runs on
 * this host (killed mid-write) is taken at once, not after its stale time, which kept a `close()`
 * waiting 10 s. Resolves to the release; throws proper-lockfile's ELOCKED after WAIT_MS.
 */
export async function lockForReplace(
  lockfile: Lockfile,
  path: string,
  onCompromised: (error: Error) => void = () => {},
): Promise<() => Promise<void>> {
  const folder = `${path}.lock`;
  const owner = `${path}.lock-owner`;
  const deadline = Date.now() + WAIT_MS;
  for (let delay = 5; ; delay = Math.min(delay * 1.5, 250)) {
    try {
      const release = await lockfile.lock(path, { stale: STALE_MS, retries: 0, realpath: false, lockfilePath: folder, onCompromised });
      await writeFile(owner, `${hostname()}\n${process.pid}\n`).catch(() => {});
      return async () => {
        await rm(owner, { force: true });
        await release();
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ELOCKED" || Date.now() >= deadline) throw error;
      if (await heldByTheDead(folder, owner)) {
        await rm(folder, { recursive: true, force: true });
        continue;
      }
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/**
 * Whether the lock's holder, as it named itself, has gone: a process of this host that no longer
 * runs. A name older than the lock is its previous holder's, and says nothing.
 */
async function heldByTheDead(folder: string, owner: string): Promise<boolean> {
  const [text, named, held] = await Promise.all([
    readFile(owner, "utf8").catch(() => undefined),
    stat(owner).catch(() => undefined),
    stat(folder).catch(() => undefined),
  ]);
  if (text === undefined || named === undefined || held === undefined || named.mtimeMs < held.birthtimeMs) return false;
  const [host, pid] = text.split("\n");
  if (host !== hostname() || !/^\d+$/.test(pid ?? "") || Number(pid) === process.pid) return false;
  try {
    process.kill(Number(pid), 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
