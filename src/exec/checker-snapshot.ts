import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, lstatSync, mkdirSync, openSync, readFileSync, rmSync, type Stats } from "node:fs";
import module, { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { PROGRAM_COMPILER_OPTIONS, SNAPSHOT_REGISTRY_KEY } from "./checker-options.js";

const ENTRY = fileURLToPath(new URL("./checker-snapshot-entry.cjs", import.meta.url));
const BUILDER = fileURLToPath(new URL("./build-checker-snapshot.js", import.meta.url));
/** A build takes a few seconds; a lock this old was left by one that was killed. */
const STALE_LOCK_MS = 120_000;

/**
 * The start-up snapshot checker processes start from (`node --snapshot-blob`): the compiler loaded
 * and the program library parsed and bound, which otherwise cost each checker about 2 CPU-seconds.
 * It lives in Node's compile cache folder, one per Node, compiler and options: code this user's
 * processes run, as the compile cache itself is. That is the CLI's folder, or in a process that
 * enabled none (a library's host) the one Node would use, unless NODE_DISABLE_COMPILE_CACHE says no.
 * Missing, it is built in the background, by a detached process that outlives this one if need be,
 * and checkers start without it meanwhile. Returns its path when there is one this user alone can
 * have written.
 */
export function checkerSnapshot(): string | undefined {
  const folder = cacheFolder();
  if (folder === undefined || !ownedAlone(stat(folder))) return undefined;
  const typescript = createRequire(import.meta.url).resolve("typescript");
  const input = { typescript, options: PROGRAM_COMPILER_OPTIONS, registryKey: SNAPSHOT_REGISTRY_KEY };
  const key = createHash("sha256")
    .update(JSON.stringify([process.version, process.arch, process.execPath, input]))
    .update(readFileSync(join(dirname(typescript), "..", "package.json")))
    .update(readFileSync(ENTRY))
    .digest("hex")
    .slice(0, 16);
  const blob = join(folder, `pmcp-checker-${key}.blob`);
  const found = stat(blob);
  if (found?.isFile() && ownedAlone(found)) return blob;
  // In a folder this user alone can write, a snapshot others could have changed (written under an
  // umask of 0) is this user's to replace.
  if (found !== undefined) discardSnapshot(blob);
  build(blob, JSON.stringify(input));
  return undefined;
}

function cacheFolder(): string | undefined {
  const enabled = module.getCompileCacheDir?.();
  if (enabled !== undefined) return enabled;
  if (process.env.NODE_DISABLE_COMPILE_CACHE !== undefined) return undefined;
  const folder = join(tmpdir(), "node-compile-cache");
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
  } catch {
    return undefined;
  }
  return folder;
}

/** A snapshot a checker could not start from: the next start builds it again. */
export function discardSnapshot(blob: string): void {
  try {
    rmSync(blob, { force: true });
  } catch {
    // Not a file this process can remove: the snapshot stays unused.
  }
}

function build(blob: string, input: string): void {
  const lock = `${blob}.building`;
  const held = stat(lock);
  if (held !== undefined && Date.now() - held.mtimeMs < STALE_LOCK_MS) return;
  if (held !== undefined) rmSync(lock, { force: true });
  try {
    // One build at a time, whichever process wants it.
    closeSync(openSync(lock, "wx", 0o600));
  } catch {
    return;
  }
  const { NODE_OPTIONS: _hostOptions, ...env } = process.env;
  const builder = spawn(process.execPath, [BUILDER, ENTRY, blob, lock], {
    detached: true,
    stdio: "ignore",
    env: { ...env, PMCP_CHECKER_SNAPSHOT: input },
  });
  builder.on("error", () => rmSync(lock, { force: true }));
  builder.unref();
}

function stat(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Owned by this user, and writable by no one else. */
function ownedAlone(stats: Stats | undefined): boolean {
  return stats !== undefined && stats.uid === process.getuid?.() && (stats.mode & 0o022) === 0;
}
