import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { observationPath } from "@pmcp-codegen/runtime";
import { formatObservationLog } from "@pmcp-codegen/runtime/internal";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "../../src/bundle/types.js";
import { ObservationFollower } from "../../src/dev/follow-observations.js";
import { inferBundle, LogMemory } from "../../src/learn/observation-logs.js";
import { outputDir } from "../helpers/typescript.js";

let dir: string;

beforeAll(async () => {
  dir = await outputDir("observation-logs");
});

/** Replaces the log of `s/<tool>` as the observer does: a whole file renamed over it. */
async function writeLog(logs: string, tool: string, values: unknown[]): Promise<void> {
  const path = observationPath(logs, "s", tool);
  await mkdir(dirname(path), { recursive: true });
  const header = {
    format: "pmcp-observations/1" as const,
    server: "s",
    tool,
    seen: values.length,
    firstSeen: "a",
    lastSeen: "b",
    redacted: false,
  };
  await writeFile(`${path}.new`, formatObservationLog({ header, samples: values.map((value) => ({ at: "b", value })) }));
  await rename(`${path}.new`, path);
}

function bundleOf(tools: readonly string[], declared?: Record<string, unknown>): Bundle {
  return {
    version: "1.0",
    servers: [
      {
        id: "s",
        tools: tools.map((name) => ({
          name,
          inputSchema: { type: "object" },
          ...(name === "t0" && declared ? { outputSchema: declared } : {}),
        })),
      },
    ],
  };
}

const counts = (n: number) => Array.from({ length: n }, (_, index) => ({ count: index }));

describe("inferBundle with a LogMemory", () => {
  it("infers again only the logs whose bytes changed; the others keep their block", async () => {
    const logs = `${dir}/incremental`;
    const tools = Array.from({ length: 5 }, (_, index) => `t${index}`);
    for (const tool of tools) await writeLog(logs, tool, counts(3));
    const memory = new LogMemory();
    const inferredTools = async (bundle: Bundle) => (await inferBundle(bundle, logs, memory)).inferred.map((block) => block.tool);

    const first = await inferBundle(bundleOf(tools), logs, memory);
    expect(first.inferred.map((block) => block.tool)).toEqual(tools);
    expect(await inferredTools(bundleOf(tools))).toEqual([]);

    await writeLog(logs, "t2", counts(12));
    const second = await inferBundle(bundleOf(tools), logs, memory);
    expect(second.inferred.map((block) => [block.tool, block.observations, block.quality])).toEqual([["t2", 12, "medium"]]);
    // The same bytes in a new file (another inode and time): read, and nothing learned again.
    await writeLog(logs, "t2", counts(12));
    expect(await inferredTools(bundleOf(tools))).toEqual([]);
    // What is learned is what a run without memory learns.
    expect((await inferBundle(bundleOf(tools), logs, memory)).bundle).toEqual((await inferBundle(bundleOf(tools), logs)).bundle);

    // Drift is judged against the declared schema: another one learns that log again.
    const declared = { type: "object", properties: { count: { type: "string" } } };
    const judged = await inferBundle(bundleOf(tools, declared), logs, memory);
    expect(judged.inferred.map((block) => [block.tool, block.drift?.map((drift) => drift.path)])).toEqual([["t0", ["/count"]]]);
  });

  it("in pmcp dev, replaces a tool's block only when its quality or schema changes, not its counts", async () => {
    const logs = `${dir}/follower`;
    await writeLog(logs, "t0", counts(2));
    const follower = new ObservationFollower(logs);
    const learned = await follower.learn(bundleOf(["t0"]));
    const block = learned.bundle.servers[0]?.inferred?.[0];
    expect([block?.observations, block?.quality]).toEqual([2, "low"]);

    await writeLog(logs, "t0", counts(5));
    expect((await follower.learn(learned.bundle)).bundle.servers[0]?.inferred?.[0]).toBe(block);
    await writeLog(logs, "t0", counts(10));
    const medium = (await follower.learn(learned.bundle)).bundle.servers[0]?.inferred?.[0];
    expect([medium?.observations, medium?.quality]).toEqual([10, "medium"]);
    await writeLog(logs, "t0", [...counts(10), { count: 1, extra: "a" }]);
    expect((await follower.learn(learned.bundle)).bundle.servers[0]?.inferred?.[0]?.schema).toEqual({
      type: "object",
      properties: { count: { type: "integer" }, extra: { type: "string" } },
      required: ["count"],
    });
    // A folder not there yet teaches nothing, and is no failure.
    expect(await new ObservationFollower(`${dir}/none`).learn(learned.bundle)).toEqual({ bundle: learned.bundle, problems: [] });
  });
});
