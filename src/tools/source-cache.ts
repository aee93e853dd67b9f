import { readFile, stat } from "node:fs/promises";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { hash } from "../codegen/hash.js";
import { ReuseCache } from "../codegen/reuse-cache.js";
import type { FromSourceResult } from "./from-source.js";

/** What a run recorded: each file its result was read from with the digest of its content, and the result. */
interface SourceEntry {
  files: [path: string, digest: string][];
  result: FromSourceResult;
}

/**
 * toolsFromSource, answered from the reuse cache (`from-source/` in it) while every file the last
 * compile read still has the content it had: a hit loads neither TypeScript nor the compile. The key
 * holds what else shapes the result: the module, the working directory (paths in the result are
 * relative to it) and the compiler's version, which stands for its own lib .d.ts files. A result
 * with problems is not recorded: an import that did not resolve is fixed by creating a file, and
 * no recorded digest would notice. `useCache: false` compiles and records nothing.
 */
export async function toolsFromSourceCached(file: string, useCache: boolean): Promise<FromSourceResult> {
  const cache = useCache ? await ReuseCache.open() : undefined;
  const compile = async () => (await import("./from-source.js")).toolsFromSource(file);
  if (cache === undefined) return compile();
  const name = `from-source/${cache.key({ module: resolve(file), cwd: process.cwd(), typescript: await typescriptVersion() })}.json`;
  const recorded = await reusable(await cache.read(name));
  if (recorded !== undefined) return recorded;
  const started = Date.now();
  const result = await compile();
  if (result.problems.length > 0) return result;
  const files = await digestsUnchangedSince(result.files, started);
  if (files !== undefined) await cache.write([{ name, content: JSON.stringify({ files, result } satisfies SourceEntry) }]);
  return result;
}

/** The version of the TypeScript toolsFromSource loads, from its package.json: importing it costs hundreds of ms. */
async function typescriptVersion(): Promise<unknown> {
  const manifest = await readFile(createRequire(import.meta.url).resolve("typescript/package.json"), "utf8");
  return (JSON.parse(manifest) as { version?: unknown }).version;
}

/** The recorded result if every recorded file still has its digest; a corrupt or unreadable entry is a miss too. */
async function reusable(text: string | undefined): Promise<FromSourceResult | undefined> {
  if (text === undefined) return undefined;
  try {
    const entry = JSON.parse(text) as SourceEntry;
    if (typeof entry.result !== "object" || entry.result === null) return undefined;
    const current = await Promise.all(entry.files.map(async ([path]) => hash(await readFile(path))));
    return current.every((digest, index) => digest === entry.files[index]?.[1]) ? entry.result : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Each file's digest; undefined when one is gone or was modified after `since` (during the compile):
 * its digest could then describe content the result was not made from.
 */
async function digestsUnchangedSince(paths: readonly string[], since: number): Promise<SourceEntry["files"] | undefined> {
  try {
    return await Promise.all(
      paths.map(async (path): Promise<[string, string]> => {
        const [content, info] = await Promise.all([readFile(path), stat(path)]);
        if (info.mtimeMs > since) throw new Error(`${path} changed during the compile`);
        return [path, hash(content)];
      }),
    );
  } catch {
    return undefined;
  }
}
