import { createHash } from "node:crypto";
import { join } from "node:path";
import { z } from "zod";
import { formatIssues } from "./issues.js";
import type { SampleCut } from "./sample-bounds.js";

export const OBSERVATION_FORMAT = "pmcp-observations/1";

export const ObservationHeaderSchema = z.object({
  format: z.literal(OBSERVATION_FORMAT),
  server: z.string(),
  tool: z.string(),
  /** Results observed in all, of which the file keeps a uniform sample. */
  seen: z.number().int().nonnegative(),
  firstSeen: z.string(),
  lastSeen: z.string(),
  /** Values were stored as structure only (see `redactValue`). */
  redacted: z.boolean(),
});
export type ObservationHeader = z.infer<typeof ObservationHeaderSchema>;

/**
 * One observed result: its JSON value, or the content block types of a result with no JSON
 * (text, images, links). `cut` names the bounds a value was cut down to fit (see boundSample).
 */
export type Sample = { at: string; value: unknown; cut?: SampleCut[] } | { at: string; content: string[] };

/**
 * The observation log of one tool: a JSONL file whose first line is a header and whose
 * other lines are samples, `{"at": ISO time, "value": the unwrapped result}`, or for a result
 * that held no JSON `{"at": ISO time, "content": ["text", "image", …]}` (its block types; logs
 * written before such samples existed have none). The header names the server and tool, so a
 * reader never trusts the (encoded) file name.
 */
export interface ObservationLog {
  header: ObservationHeader;
  samples: Sample[];
}

/**
 * `<dir>/<server>/<tool>.jsonl`, each name reduced to letters, digits, `_` and `-`, with
 * every other byte written `%XX`: server and tool names are untrusted, and no name may
 * climb out of `dir` or hide as a dot file. A name longer than MAX_NAME once encoded keeps
 * its start and gets a hash of the whole name after a `~` (which no encoding contains): file
 * names end at 255 bytes, with the atomic write's temporary name and the lock's still to
 * fit. Readers take the names from the log's header, never from the file name.
 */
export function observationPath(dir: string, server: string, tool: string): string {
  return join(dir, fileSafe(server), `${fileSafe(tool)}.jsonl`);
}

const MAX_NAME = 120;

function fileSafe(name: string): string {
  let safe = "";
  for (const byte of Buffer.from(name, "utf8")) {
    const char = String.fromCharCode(byte);
    safe += /[A-Za-z0-9_-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  if (safe.length <= MAX_NAME) return safe;
  // Cut before a partial `%XX`, so the start still reads as what it is.
  const start = safe.slice(0, 80).replace(/%[0-9A-F]?$/, "");
  return `${start}~${createHash("sha256").update(name, "utf8").digest("hex").slice(0, 32)}`;
}

export function formatObservationLog(log: ObservationLog): string {
  return [log.header, ...log.samples].map((line) => `${JSON.stringify(line)}\n`).join("");
}

/** Parses a log; errors name the file and line. Samples are checked by hand: logs hold thousands. */
export function parseObservationLog(text: string, file: string): ObservationLog {
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  const json = (line: string | undefined, number: number): unknown => {
    try {
      return JSON.parse(line ?? "");
    } catch {
      throw new Error(`${file}:${number}: not JSON`);
    }
  };
  const header = ObservationHeaderSchema.safeParse(json(lines[0], 1));
  if (!header.success) throw new Error(formatIssues(`${file}:1: not an observation log header`, header.error.issues));
  const samples = lines.slice(1).map((line, index): Sample => {
    const sample = json(line, index + 2) as { at?: unknown; value?: unknown; content?: unknown; cut?: unknown } | null;
    if (typeof sample === "object" && sample !== null && typeof sample.at === "string") {
      if ("value" in sample) return { at: sample.at, value: sample.value, ...cutOf(sample.cut) };
      const content = sample.content;
      if (Array.isArray(content) && content.every((kind) => typeof kind === "string")) return { at: sample.at, content };
    }
    throw new Error(
      `${file}:${index + 2}: not an observation (expected {"at": time, "value": result} or {"at": time, "content": [types]})`,
    );
  });
  return { header: header.data, samples };
}

/** The bounds a sample names as having cut it; anything else there is not one of ours and says nothing. */
function cutOf(cut: unknown): { cut?: SampleCut[] } {
  const known = Array.isArray(cut) ? cut.filter((kind): kind is SampleCut => kind === "depth" || kind === "size") : [];
  return known.length === 0 ? {} : { cut: known };
}
