import { readFile } from "node:fs/promises";
import { z } from "zod";
import { carryInferred } from "../bundle/carry-inferred.js";
import { toJsonText } from "../bundle/serialize.js";
import type { Bundle } from "../bundle/types.js";
import { parseSchemaFile } from "../bundle-files/read.js";
import { PmcpError } from "../errors.js";
import { parseJsonText } from "../files/read-json.js";
import { systemReason } from "../files/system-reason.js";
import { writeOutput } from "../files/write-output.js";
import { withBundleLock } from "./bundle-lock.js";

/**
 * Writes the inferred blocks of `learned` into the bundle file at `path` as it is now (another
 * process may have rewritten it since it was read): carryInferred on the file's own JSON, so that
 * everything else in it, servers and tools `learned` does not name included, keeps its bytes.
 * Locked against other writers of learned blocks, and replaced atomically; not written when no
 * block changes. Returns whether the file was written; `flag` names the path in failures.
 */
export function writeInferred(path: string, learned: Bundle, flag: string): Promise<boolean> {
  return withBundleLock(path, () => mergeInferred(path, learned, flag));
}

/** writeInferred's work, for a caller that holds the bundle's lock already. */
export async function mergeInferred(path: string, learned: Bundle, flag: string): Promise<boolean> {
  const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
    throw new PmcpError(error.code === "ENOENT" ? "NOT_FOUND" : "IO_FAILED", `${path}: ${systemReason(error)}`, { cause: error });
  });
  if (parseSchemaFile(path, text).format !== "bundle") throw new PmcpError("INVALID_INPUT", `${path}: no longer a bundle file`);
  const onDisk = parseJsonText(text, path, z.unknown()) as Bundle;
  const next = carryInferred(onDisk, learned);
  // Compared as objects, not as text: a file indented otherwise is not rewritten for nothing.
  if (next === onDisk) return false;
  await writeOutput(flag, [{ path, content: toJsonText(next) }]);
  return true;
}
