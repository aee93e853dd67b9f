import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { ObservationRecorder, observationPath } from "@pmcp-codegen/runtime";
import {
  boundSample,
  formatObservationLog,
  MAX_LOG_BYTES,
  MAX_SAMPLE_BYTES,
  MAX_SAMPLE_DEPTH,
  type Sample,
} from "@pmcp-codegen/runtime/internal";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle, InferredTool } from "../../src/bundle/types.js";
import { inferBundle } from "../../src/learn/observation-logs.js";
import { outputDir } from "../helpers/typescript.js";

let dir: string;

beforeAll(async () => {
  dir = await outputDir("infer-limits");
});

/** Eight JSON types a field can take. */
const KINDS: readonly unknown[] = ["text", 7, 7.5, true, null, { x: 1 }, [1], "2024-01-01T00:00:00Z"];

/** `count` objects of `keys` fields; field j of object i has type KINDS[(i + shift * j) % 8]. */
function cycling(count: number, keys: number, shift: number): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, index) =>
    Object.fromEntries(Array.from({ length: keys }, (_, key) => [`f${key}`, KINDS[(index + shift * key) % KINDS.length]])),
  );
}

/** What `pmcp schema infer` makes of these samples of one tool `s/t`, written as an observation log. */
async function infer(name: string, samples: Sample[]): Promise<InferredTool> {
  const logs = `${dir}/${name}`;
  const path = observationPath(logs, "s", "t");
  await mkdir(dirname(path), { recursive: true });
  const header = {
    format: "pmcp-observations/1",
    server: "s",
    tool: "t",
    seen: samples.length,
    firstSeen: "a",
    lastSeen: "b",
    redacted: false,
  };
  await writeFile(path, formatObservationLog({ header: header as never, samples }));
  const tool = { name: "t", inputSchema: { type: "object" } };
  const bundle = { version: "1.0", servers: [{ id: "s", tools: [tool] }] } as Bundle;
  const [block] = (await inferBundle(bundle, logs)).inferred;
  if (block === undefined) throw new Error(`nothing inferred from ${logs}`);
  return block;
}

const values = (list: unknown[]): Sample[] => list.map((value) => ({ at: "a", value }));

describe("quality", () => {
  it("does not depend on how many keys the objects have, whether quicktype makes them a map or not", async () => {
    const grade = async (keys: number, shift: number) => {
      const block = await infer(`keys-${keys}-${shift}`, values(cycling(200, keys, shift)));
      // quicktype makes a map of 30 keys that vary alike: the case that was graded high.
      return [(block.schema as { additionalProperties?: unknown }).additionalProperties === undefined ? "class" : "map", block.quality];
    };
    // The case: fields cycling out of step, every object holding each of the eight types.
    expect(await grade(30, 1)).toEqual(["map", "none"]);
    // Fields that vary alike are graded alike, as a class of 3 fields or a map of 30 or 300.
    expect(await Promise.all([3, 30, 300].map((keys) => grade(keys, 0)))).toEqual([
      ["class", "medium"],
      ["map", "medium"],
      ["map", "medium"],
    ]);
  });
});

/** `{ "a": { "a": … 1 } }`, `levels` objects deep, built without recursion. */
function nested(levels: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < levels; level++) value = { a: value };
  return value;
}

describe("inference bounds", () => {
  it("learns from a sample 1,000 levels deep, cut at 64 levels, and says so in the block", async () => {
    const block = await infer("deep", values([nested(1000), nested(3)]));
    expect(block).toMatchObject({ observations: 2, quality: "low", capped: { depth: 1 } });
    expect(JSON.stringify(block.schema).length).toBeLessThan(20_000);
  });

  it("cuts a sample over 64 KiB to fit, and uses an even spread of 1,000 samples from a longer log", async () => {
    const big = { items: Array.from({ length: 5000 }, (_, index) => ({ id: index, name: "x".repeat(40) })) };
    const many = values(Array.from({ length: 1500 }, (_, index) => ({ index })));
    const block = await infer("big-and-many", [...values([big]), ...many]);
    expect(block.capped).toEqual({ size: 1, count: 501 });
    expect(block.observations).toBe(1000);
    expect((block.schema as { properties?: unknown }).properties).toEqual({
      items: {
        type: "array",
        items: { type: "object", properties: { id: { type: "integer" }, name: { type: "string" } }, required: ["id", "name"] },
      },
      index: { type: "integer" },
    });
  });

  it("learns every other tool when one log is broken, and names the broken one", async () => {
    const logs = `${dir}/broken`;
    await mkdir(`${logs}/s`, { recursive: true });
    await writeFile(`${logs}/s/broken.jsonl`, "not a log\n");
    const recorder = new ObservationRecorder({ dir: logs });
    recorder.record("s", "t", { ok: true });
    await recorder.flush();
    const bundle = { version: "1.0", servers: [{ id: "s", tools: [{ name: "t", inputSchema: { type: "object" } }] }] } as Bundle;
    const result = await inferBundle(bundle, logs);
    expect(result.inferred.map((block) => [block.tool, block.quality])).toEqual([["t", "low"]]);
    expect(result.failed).toEqual([`${logs}/s/broken.jsonl:1: not JSON; not learned from`]);
  });
});

describe("observation samples", () => {
  it("keep each value's type within 64 KiB and 64 levels, a __proto__ key as a key", () => {
    const value = JSON.parse(
      `{"__proto__": "p", "list": [${Array.from({ length: 3000 }, () => `{"n": 1.5, "s": "${"é".repeat(30)}"}`).join(",")}], "long": "${"y".repeat(100_000)}", "deep": ${JSON.stringify(nested(100))}}`,
    );
    const sample = boundSample(value);
    expect(sample.cut).toEqual(["depth", "size"]);
    expect(Buffer.byteLength(sample.json)).toBeLessThanOrEqual(MAX_SAMPLE_BYTES);
    expect(JSON.parse(sample.json)).toEqual(sample.value);
    const kept = sample.value as { list: { n: number; s: string }[]; long: string; deep: unknown };
    expect(Object.keys(kept)).toEqual(["__proto__", "list", "long", "deep"]);
    expect(Object.getPrototypeOf(kept)).toBe(Object.prototype);
    expect([kept.list.length > 10, kept.list.every((item) => item.n === 1.5 && typeof item.s === "string")]).toEqual([true, true]);
    expect([typeof kept.long, kept.long.length > 1000]).toEqual(["string", true]);
    let depth = 0;
    for (let node = kept.deep as { a?: unknown }; node.a !== undefined; node = node.a as { a?: unknown }) depth++;
    expect(depth).toBe(MAX_SAMPLE_DEPTH - 2);
    expect(boundSample({ small: [1, "a"] })).toEqual({ value: { small: [1, "a"] }, json: '{"small":[1,"a"]}', cut: [] });
  });

  it("and a tool's log stay within their caps: 12 results of 5 MB, 300 of 60 KB, one 100,000 levels deep", async () => {
    const logs = `${dir}/caps`;
    const failures: Error[] = [];
    const recorder = new ObservationRecorder({ dir: logs, maxSamples: 1000, onError: (error) => failures.push(error) });
    const huge = { rows: Array.from({ length: 50_000 }, (_, index) => ({ index, text: "z".repeat(90) })) };
    for (let index = 0; index < 12; index++) recorder.record("s", "huge", huge);
    for (let index = 0; index < 300; index++) recorder.record("s", "wide", { index, text: "w".repeat(60_000) });
    recorder.record("s", "deep", JSON.parse(`${"[".repeat(100_000)}${"]".repeat(100_000)}`));
    await recorder.flush();
    expect(failures).toEqual([]);
    const read = async (tool: string) => {
      const text = await readFile(observationPath(logs, "s", tool), "utf8");
      const lines = text.trimEnd().split("\n").slice(1);
      return { bytes: Buffer.byteLength(text), samples: lines.length, cut: lines.map((line) => JSON.parse(line).cut) };
    };
    const huge12 = await read("huge");
    expect([huge12.samples, huge12.bytes < 12 * (MAX_SAMPLE_BYTES + 100) + 200]).toEqual([12, true]);
    expect(huge12.cut).toEqual(Array.from({ length: 12 }, () => ["size"]));
    const wide = await read("wide");
    expect([wide.bytes <= MAX_LOG_BYTES + 200, wide.samples < 300, wide.samples > 100]).toEqual([true, true, true]);
    expect((await read("deep")).cut).toEqual([["depth"]]);
  });
});
