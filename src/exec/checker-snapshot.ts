import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { closeSync, lstatSync, openSync, readFileSync, rmSync, type Stats } from "node:fs";
import module, { createRequire } from "node:module";
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
 * It lives in Node's compile cache folder, the CLI's (none, no snapshot), one per Node, compiler
 * and options: code this user's processes run, as the compile cache itself is. Missing, it is
 * built in the background, by a detached process that outlives this one if need be, and checkers
 * start without it meanwhile. Returns its path when there is one this user alone can have written.
 */
export function checkerSnapshot(): string | undefined {
  const folder = module.getCompileCacheDir?.();
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
  if (found === undefined) build(blob, JSON.stringify(input));
  return undefined;
}

/** A snapshot a checker could not start from: the next start builds it again. */
export function discardSnapshot(blob: string): void {
  rmSync(blob, { force: true });
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
