import { describe, expect, it } from "vitest";
import { retryDelay } from "../src/dev/backoff.js";
import { Coalescer } from "../src/dev/coalescer.js";

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
});
