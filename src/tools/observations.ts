import { type Dirent, readdirSync, readFileSync, realpathSync, type Stats, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { hash } from "../codegen/hash.js";

/**
 * Everything a compile asked the file system, each question with the answer it got: the text of
 * each file read (as a digest; null when it could not be read), whether each path probed is a file
 * or a folder, the folders listed in each folder listed, and where each path resolved through
 * links. The result of a compile depends on nothing else on disk, so while every answer is still
 * the same a new compile would give the same result. Kept apart from the recording (recording-host.ts),
 * which needs TypeScript: checking the answers must not load it.
 */
export const ObservationsSchema = z.object({
  read: z.array(z.tuple([z.string(), z.string().nullable()])),
  fileExists: z.array(z.tuple([z.string(), z.boolean()])),
  directoryExists: z.array(z.tuple([z.string(), z.boolean()])),
  directories: z.array(z.tuple([z.string(), z.array(z.string())])),
  realpath: z.array(z.tuple([z.string(), z.string()])),
});
export type Observations = z.infer<typeof ObservationsSchema>;

/** The digest of a file's text as TypeScript decodes it (no byte order mark), over its UTF-8 encoding as `hash` takes text. */
export function textDigest(text: string): string {
  return hash(text);
}

/**
 * Whether every answer the compile got is still the one the file system gives, asking each question
 * again as TypeScript's `ts.sys` asks it: stat following links, folder listings of folders only and
 * sorted, an unreadable path answering as missing. Synchronous, stopping at the first changed answer:
 * the few hundred stats of a hit cost 2 ms so, five times that through promises.
 */
export function observationsHold(observations: Observations): boolean {
  return (
    observations.read.every(([path, digest]) => digestOf(path) === digest) &&
    observations.fileExists.every(([path, exists]) => (statOf(path)?.isFile() ?? false) === exists) &&
    observations.directoryExists.every(([path, exists]) => (statOf(path)?.isDirectory() ?? false) === exists) &&
    observations.directories.every(([path, names]) => directoriesIn(path).join("/") === names.join("/")) &&
    observations.realpath.every(([path, real]) => realpathOf(path) === real)
  );
}

/** The digest textDigest gives the text TypeScript reads from the file; null when there is none. */
function digestOf(path: string): string | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    return null;
  }
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return textDigest(new TextDecoder("utf-16be").decode(bytes));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return textDigest(new TextDecoder("utf-16le").decode(bytes));
  // Valid UTF-8 is the encoding of its text, so the bytes after the byte order mark hash as the text
  // does, without decoding megabytes of .d.ts; bytes that are not valid UTF-8 match no text's digest: a miss.
  return hash(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? bytes.subarray(3) : bytes);
}

function statOf(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** The folders in a folder, links to folders included, sorted; none when it cannot be listed. */
function directoriesIn(path: string): string[] {
  let entries: Dirent[];
  try {
    entries = readdirSync(path, { withFileTypes: true });
  } catch {
    return [];
  }
  const isDirectory = (entry: Dirent) =>
    entry.isSymbolicLink() ? (statOf(join(path, entry.name))?.isDirectory() ?? false) : entry.isDirectory();
  return entries
    .filter(isDirectory)
    .map((entry) => entry.name)
    .sort();
}

function realpathOf(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
