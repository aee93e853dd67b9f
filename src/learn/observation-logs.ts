import { createHash } from "node:crypto";
import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage, parseObservationLog } from "@pmcp-codegen/runtime/internal";
import type { Bundle } from "../bundle/types.js";
import { PmcpError } from "../errors.js";
import { systemReason } from "../files/system-reason.js";
import { type InferResult, inferFromLogs, type ReadLog, type ReadLogs } from "../infer/infer-bundle.js";

/** What a file held when last read: its size, times and inode, the digest of its bytes, and what they parsed to. */
interface Known {
  stamp: string;
  digest: string;
  read: ReadLog | { problem: string };
}

/**
 * What earlier reads of a folder of logs found, so that a later one re-reads only the files whose
 * size, times or inode changed and parses only those whose bytes changed; a log keeps the block
 * inferred from it until its bytes change. `pmcp dev` follows a hundred tools' logs with one.
 */
export class LogMemory {
  readonly known = new Map<string, Known>();
}

/**
 * Every `<server>/<tool>.jsonl` under `dir`, keyed by the server and tool its header names; a
 * file that is no log is named in `failed` (with the line), and the others are still read.
 * Writers replace a log by renaming a whole file over it (the runtime's observer does, under its
 * lock), so a file read by its name is one version or the next, never half of one: no lock needed.
 */
export async function readLogs(dir: string, memory = new LogMemory()): Promise<ReadLogs> {
  const servers = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
    throw new PmcpError(
      "NOT_FOUND",
      error.code === "ENOENT"
        ? `${dir}: no such folder (record observations with CompositionClient's observe option or pmcp schema discover)`
        : error.code === "ENOTDIR"
          ? `${dir}: a file is there, not a folder of observation logs`
          : `${dir}: ${systemReason(error)}`,
    );
  });
  const logs = new Map<string, ReadLog>();
  const failed: string[] = [];
  const seen = new Set<string>();
  for (const entry of servers.filter((candidate) => candidate.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const folder = join(dir, entry.name);
    const names = await readdir(folder).catch((error: NodeJS.ErrnoException) => {
      // A folder removed since the listing holds nothing to learn; one that cannot be read is said.
      if (error.code !== "ENOENT") failed.push(`${folder}: ${errorMessage(error)}; not learned from`);
      return [] as string[];
    });
    for (const name of names.filter((file) => file.endsWith(".jsonl")).sort()) {
      const path = join(folder, name);
      const known = await readKnown(path, memory.known.get(path));
      if (known === undefined) continue;
      seen.add(path);
      memory.known.set(path, known);
      if ("problem" in known.read) failed.push(known.read.problem);
      else logs.set(JSON.stringify([known.read.log.header.server, known.read.log.header.tool]), known.read);
    }
  }
  for (const path of memory.known.keys()) if (!seen.has(path)) memory.known.delete(path);
  return { logs, failed };
}

/** The file as `before` found it when nothing about it changed, else read again; undefined when it went meanwhile. */
async function readKnown(path: string, before: Known | undefined): Promise<Known | undefined> {
  try {
    // Taken before the read: a file replaced in between is read again next time, never missed.
    const info = await stat(path, { bigint: true });
    const stamp = `${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`;
    if (before?.stamp === stamp) return before;
    const bytes = await readFile(path);
    const digest = createHash("sha256").update(bytes).digest("hex");
    if (before?.digest === digest) return { ...before, stamp };
    return { stamp, digest, read: { log: parseObservationLog(bytes.toString("utf8"), path) } };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    return { stamp: "", digest: "", read: { problem: `${errorMessage(error)}; not learned from` } };
  }
}

/**
 * Infers a schema for every tool of the bundle that has an observation log in `dir` (inferFromLogs),
 * reading the folder first. With the `memory` of earlier calls, only the logs whose bytes changed
 * since are read and inferred again.
 */
export async function inferBundle(bundle: Bundle, dir: string, memory?: LogMemory): Promise<InferResult> {
  return inferFromLogs(bundle, await readLogs(dir, memory));
}
