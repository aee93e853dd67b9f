import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { retryDelay } from "../../src/dev/backoff.js";
import { Coalescer } from "../../src/dev/coalescer.js";
import { watchInputs } from "../../src/dev/watch-inputs.js";

describe("pmcp dev's coalescing and backoff", () => {
  it("runs once per burst, once more for requests during a run, and never after stop", async () => {
    const runs: number[] = [];
    let started: () => void = () => {};
    let finish: () => void = () => {};
    const nextRun = () =>
      new Promise<void>((resolve) => {
        started = resolve;
      });
    const coalescer = new Coalescer(20, async () => {
      runs.push(runs.length + 1);
      started();
      await new Promise<void>((resolve) => {
        finish = resolve;
      });
    });
    const first = nextRun();
    for (let i = 0; i < 5; i++) coalescer.request();
    await first;
    const second = nextRun();
    for (let i = 0; i < 3; i++) coalescer.request();
    finish();
    await second;
    coalescer.request();
    const stopped = coalescer.stop();
    finish();
    await stopped;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(runs).toEqual([1, 2]);
  });

  it("doubles the wait from 250 ms up to 10 s, less up to a quarter at random", () => {
    const waits = (random: number) => Array.from({ length: 8 }, (_, attempt) => retryDelay(attempt, () => random));
    expect(waits(0)).toEqual([250, 500, 1000, 2000, 4000, 8000, 10000, 10000]);
    expect(waits(1)).toEqual([188, 375, 750, 1500, 3000, 6000, 7500, 7500]);
  });

  it("sees every save of a watched file, each made the moment the last was seen: created, renamed over, written in place, removed", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-watch-"));
    const config = join(dir, "pmcp.config.json");
    let seen: () => void = () => {};
    const watch = watchInputs({ files: [config, join(dir, "pmcp.config.ts")] }, () => seen());
    await watch.ready;
    /** Resolves at the first event after `save` began; a save that is lost leaves the test to its time limit. */
    const saw = async (save: () => Promise<void>) => {
      const event = new Promise<void>((resolve) => {
        seen = resolve;
      });
      await save();
      await event;
    };
    // As editors save: a whole file renamed over the last. A watch on the file itself lost such saves
    // made right after another: it follows the old file, and watches the new one only once it saw it.
    for (let save = 0; save < 20; save++) {
      await saw(async () => {
        await writeFile(`${config}.saving`, String(save));
        await rename(`${config}.saving`, config);
      });
    }
    await saw(() => writeFile(config, "in place"));
    await saw(() => rm(config));
    await saw(() => writeFile(join(dir, "pmcp.config.ts"), "export default {};"));
    await watch.close();
    await rm(dir, { recursive: true, force: true });
  });
});
