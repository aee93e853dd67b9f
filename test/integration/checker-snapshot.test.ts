import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { fixtureCommand, runCli } from "../helpers/cli.js";

// Checkers start from a snapshot kept in Node's compile cache folder, which NODE_COMPILE_CACHE moves
// to a folder of this test's own: the first run builds it, in the background, and the next start from it.
describe("the type-checker's start-up snapshot", () => {
  it("is built by a first run for this user alone, gives the same answers as a checker started without it, is replaced once others could write it, and is dropped once it cannot start one", async () => {
    const cache = await mkdtemp(join(tmpdir(), "pmcp-snapshot-"));
    const programs = await mkdtemp(join(tmpdir(), "pmcp-snapshot-programs-"));
    // Snapshots are tens of megabytes.
    onTestFinished(() => Promise.all([cache, programs].map((dir) => rm(dir, { recursive: true, force: true }))).then(() => undefined));
    const good = join(programs, "good.ts");
    const bad = join(programs, "bad.ts");
    await writeFile(good, 'const { count, tags } = await behaviour.getItem({ id: "a" });\nreturn count + (tags ?? []).map(String).length;');
    await writeFile(bad, "const n: number = 'one';\nreturn n.toFixed(2).padStart(1, 2);");
    const server = ["--stdio", fixtureCommand("behaviour-server.mjs"), "--id", "behaviour"];
    const env = { NODE_COMPILE_CACHE: cache };
    const run = async () => [await runCli(["exec", good, ...server], { env }), await runCli(["exec", bad, ...server], { env })];
    /** The snapshots in the cache (Node keeps one folder in it per Node version), and nothing half-built. */
    const snapshots = async () => {
      const [folder] = await readdir(cache);
      const names = folder === undefined ? [] : await readdir(join(cache, folder));
      return names.filter((name) => name.startsWith("pmcp-checker-")).map((name) => join(cache, folder as string, name));
    };

    /** The one snapshot, once built, with its permission bits. */
    const built = () =>
      vi.waitFor(
        async () => {
          const found = await snapshots();
          expect(found.map((path) => path.endsWith(".blob"))).toEqual([true]);
          return { path: found[0] as string, mode: (await stat(found[0] as string)).mode & 0o777 };
        },
        { timeout: 60_000, interval: 100 },
      );

    const without = await run();
    expect(without.map((result) => result.code)).toEqual([0, 1]);
    const first = await built();
    const blob = first.path;
    expect(first.mode).toBe(0o600);

    expect(await run()).toEqual(without);
    // Not dropped: its checkers started.
    expect(await snapshots()).toEqual([blob]);

    // As a run under an umask of 0 would have left it.
    await chmod(blob, 0o666);
    expect(await runCli(["exec", good, ...server], { env })).toEqual(without[0]);
    // Built again in its place: only a new build sets the bits back.
    await vi.waitFor(async () => expect(await built()).toMatchObject({ path: blob, mode: 0o600 }), { timeout: 60_000, interval: 100 });

    await writeFile(blob, (await readFile(blob)).subarray(0, 4096));
    expect(await runCli(["exec", good, ...server], { env })).toEqual(without[0]);
    // Dropped at the start it failed.
    expect(await snapshots()).toEqual([]);
  });
});
