import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { observationPath } from "@pmcp-codegen/runtime";
import { formatObservationLog, type Sample } from "@pmcp-codegen/runtime/internal";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle, InferredTool } from "../src/bundle/types.js";
import { inferBundle } from "../src/infer/infer-bundle.js";
import { outputDir } from "./helpers/typescript.js";

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
async function infer(name: string, samples: Sample[]): Promise<InferredTool | undefined> {
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
  return (await inferBundle(bundle, logs)).bundle.servers[0]?.inferred?.[0];
}

const values = (list: unknown[]): Sample[] => list.map((value) => ({ at: "a", value }));

describe("quality", () => {
  it("does not depend on how many keys the objects have, whether quicktype makes them a map or not", async () => {
    const grade = async (keys: number, shift: number) => {
      const block = await infer(`keys-${keys}-${shift}`, values(cycling(200, keys, shift)));
      // quicktype makes a map of 30 keys that vary alike: the case that was graded high.
      return [block?.schema.additionalProperties === undefined ? "class" : "map", block?.quality];
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
