import { readdir, readFile, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { jsonText } from "../bundle/serialize.js";
import { hash } from "../codegen/hash.js";
import type { GenerateWarning } from "../codegen/server-plan.js";

/**
 * The most files the cache keeps in each of its folders (module entries; run records in `runs/`):
 * `pmcp dev` against a server whose tools keep changing writes an entry per regeneration, and without
 * a bound the folder grew by one file each time. A write that takes a folder past it keeps the
 * KEPT_CACHE_FILES newest by modification time: finding them takes a stat of every file (40 ms for
 * 1,000 on a loaded machine), paid once per hundred writes rather than on each.
 */
export const MAX_CACHE_FILES = 1000;
export const KEPT_CACHE_FILES = 900;

/**
 * Remembers, outside the output folder, which modules this build of the generator made from
 * which inputs, so a re-run with unchanged inputs keeps a module without planning or rendering
 * it. Keys include a digest of the generator's own code: whoever edits the generator without
 * bumping the version still gets fresh output, yet no generated file depends on those bytes.
 * Entries are addressed by key, so concurrent runs and several output folders never disagree.
 */
export class ReuseCache {
  private constructor(
    private readonly dir: string,
    private readonly generator: string,
  ) {}

  /** The cache in the nearest `node_modules/.cache/pmcp-codegen/` above `from`; none without a `node_modules`. */
  static async open(from = process.cwd()): Promise<ReuseCache | undefined> {
    for (let dir = from; ; dir = dirname(dir)) {
      const modules = join(dir, "node_modules");
      if (
        await stat(modules).then(
          (info) => info.isDirectory(),
          () => false,
        )
      )
        return new ReuseCache(join(modules, ".cache", "pmcp-codegen"), await generatorDigest());
      if (dirname(dir) === dir) return undefined;
    }
  }

  /** The key of a module made from `inputs` by this generator. */
  key(inputs: unknown): string {
    return hash(jsonText([this.generator, inputs]));
  }

  /** What was recorded when a module was made for `key`, if anything. */
  async entry(key: string): Promise<CacheEntry | undefined> {
    const text = await this.read(`${key}.json`);
    if (text === undefined) return undefined;
    try {
      const entry = JSON.parse(text) as Partial<CacheEntry>;
      return typeof entry.contentHash === "string" && Array.isArray(entry.warnings)
        ? { contentHash: entry.contentHash, warnings: entry.warnings }
        : undefined;
    } catch {
      return undefined;
    }
  }

  /** Records the modules just made; a cache that cannot be written only costs the next run its reuse. */
  async remember(made: readonly { key: string; entry: CacheEntry }[]): Promise<void> {
    await this.write(made.map(({ key, entry }) => ({ name: `${key}.json`, content: JSON.stringify(entry) })));
  }

  /** A cache file's text, by its name within the cache; undefined when there is none. */
  read(name: string): Promise<string | undefined> {
    return readFile(join(this.dir, name), "utf8").catch(() => undefined);
  }

  /**
   * Writes cache files, by their names within the cache, in one step: every step lists the folder
   * for abandoned temp files, and the cache holds up to MAX_CACHE_FILES per folder. Then keeps the
   * folders written within that bound (keepNewest). A cache that cannot be written is no error, only
   * a slower next run.
   */
  async write(files: readonly { name: string; content: string }[]): Promise<void> {
    if (files.length === 0) return;
    // Loaded here: a re-run that changes nothing never writes.
    const { writeFilesAtomically } = await import("@pmcp-codegen/runtime/internal/files");
    const paths = files.map(({ name, content }) => ({ path: join(this.dir, name), content }));
    await writeFilesAtomically(paths).catch(() => undefined);
    await Promise.all([...new Set(paths.map(({ path }) => dirname(path)))].map(keepNewest));
  }
}

/**
 * Past MAX_CACHE_FILES, removes all but the KEPT_CACHE_FILES newest cache files of a folder. Another
 * run removing the same files, or reading one just removed, only loses a reuse.
 */
async function keepNewest(folder: string): Promise<void> {
  const names = (await readdir(folder).catch(() => [])).filter((name) => name.endsWith(".json") && !name.startsWith("."));
  if (names.length <= MAX_CACHE_FILES) return;
  const stamped = await Promise.all(
    names.map(async (name) => ({
      name,
      mtimeMs: await stat(join(folder, name)).then(
        (info) => info.mtimeMs,
        () => 0,
      ),
    })),
  );
  stamped.sort((a, b) => b.mtimeMs - a.mtimeMs);
  // A file that cannot be removed (in use, no permission) stays: the cache is only ever a help.
  await Promise.all(stamped.slice(KEPT_CACHE_FILES).map(({ name }) => rm(join(folder, name), { force: true }).catch(() => undefined)));
}

/** A module as made for a key: the digest of its text (a hand-edited module no longer has it) and its warnings. */
export interface CacheEntry {
  contentHash: string;
  warnings: GenerateWarning[];
}

let generatorCode: Promise<string> | undefined;

/**
 * A digest of every module of this build (the folder above this one: `dist/`, or `src/` when run
 * from source), from names, sizes and modification times: a rebuild or an edit changes it, and
 * reading a hundred files' stat costs a fraction of reading their text.
 */
function generatorDigest(): Promise<string> {
  generatorCode ??= (async () => {
    const root = fileURLToPath(new URL("..", import.meta.url));
    const names = (await readdir(root, { recursive: true })).filter((name) => /\.(js|ts)$/.test(name) && !name.endsWith(".d.ts")).sort();
    const stamps = await Promise.all(
      names.map(async (name) => stat(join(root, name)).then((info) => `${name}\0${info.size}\0${info.mtimeMs}`)),
    );
    return hash(stamps.join("\0"));
  })();
  return generatorCode;
}
