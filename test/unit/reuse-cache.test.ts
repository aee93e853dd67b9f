import { mkdir, mkdtemp, readdir, utimes } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { KEPT_CACHE_FILES, MAX_CACHE_FILES, ReuseCache } from "../../src/cache/reuse-cache.js";

/** A project folder with a node_modules, its cache opened, and the folder the cache writes to. */
async function projectCache(): Promise<{ cache: ReuseCache; dir: string }> {
  const project = await mkdtemp(join(tmpdir(), "pmcp-reuse-cache-"));
  await mkdir(join(project, "node_modules"));
  const cache = await ReuseCache.open(project);
  if (cache === undefined) throw new Error("no cache opened under a node_modules");
  return { cache, dir: join(project, "node_modules", ".cache", "pmcp-codegen") };
}

const names = (count: number, from = 0) => Array.from({ length: count }, (_, index) => `k${String(from + index).padStart(4, "0")}`);

/** Dates the files one second apart, the first oldest: which are the newest does not hang on the clock's resolution. */
async function ageInOrder(folder: string, keys: readonly string[]): Promise<void> {
  const start = Date.now() / 1000 - keys.length - 60;
  await Promise.all(keys.map((key, index) => utimes(join(folder, `${key}.json`), start + index, start + index)));
}

const listed = async (folder: string) => (await readdir(folder)).filter((name) => name.endsWith(".json")).sort();

// pmcp dev against a server renaming a tool wrote one entry per regeneration: 1,207 files after 20 s, none ever removed.
describe("the reuse cache", () => {
  it(`keeps at most ${MAX_CACHE_FILES} module entries: a write past that keeps the ${KEPT_CACHE_FILES} newest`, async () => {
    const { cache, dir } = await projectCache();
    const first = names(MAX_CACHE_FILES);
    await cache.remember(first.map((key) => ({ key, entry: { contentHash: key, warnings: [] } })));
    await ageInOrder(dir, first);
    const next = names(5, MAX_CACHE_FILES);
    await cache.remember(next.map((key) => ({ key, entry: { contentHash: key, warnings: [] } })));
    const kept = [...first, ...next].slice(-KEPT_CACHE_FILES);
    expect(await listed(dir)).toEqual(kept.map((key) => `${key}.json`));
    expect(await cache.entry(next[0]!)).toEqual({ contentHash: next[0], warnings: [] });
    expect(await cache.entry(first[0]!)).toBeUndefined();
  });

  it("bounds the run records the same way, apart from the module entries", async () => {
    const { cache, dir } = await projectCache();
    const runs = join(dir, "runs");
    const first = names(MAX_CACHE_FILES);
    await cache.write(first.map((key) => ({ name: join("runs", `${key}.json`), content: "{}" })));
    await cache.remember([{ key: "module", entry: { contentHash: "h", warnings: [] } }]);
    await ageInOrder(runs, first);
    await cache.write([{ name: join("runs", "latest.json"), content: "{}" }]);
    const kept = first.slice(-(KEPT_CACHE_FILES - 1)).map((key) => `${key}.json`);
    expect(await listed(runs)).toEqual([...kept, "latest.json"].sort());
    expect(await listed(dir)).toEqual(["module.json"]);
  });
});
