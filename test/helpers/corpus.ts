import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import type { Bundle } from "../../src/bundle/types.js";
import { parseSchemaFile } from "../../src/bundle-files/read.js";

/** The `tools/list` of real MCP servers from npm, captured by `npm run corpus:rebuild`. */
export const CORPUS_BUNDLE = fileURLToPath(new URL("../corpus/servers.bundle.json.gz", import.meta.url));
/** The package versions the bundle was captured from, with each server's tool count and the servers that failed. */
export const CORPUS_VERSIONS = fileURLToPath(new URL("../corpus/servers.versions.json", import.meta.url));

export interface CorpusVersions {
  packages: Record<string, string>;
  servers: { id: string; package: string; tools: number; outputSchemas: number }[];
  failed: { id: string; package: string; reason: string }[];
}

/** The captured bundle, read through the project's bundle reader, so it is validated like any user's bundle. */
export async function readCorpus(): Promise<Bundle> {
  const text = gunzipSync(await readFile(CORPUS_BUNDLE)).toString("utf8");
  return parseSchemaFile(CORPUS_BUNDLE, text).bundle;
}

export async function readCorpusVersions(): Promise<CorpusVersions> {
  return JSON.parse(await readFile(CORPUS_VERSIONS, "utf8")) as CorpusVersions;
}
