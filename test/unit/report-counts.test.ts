import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { observationPath } from "@pmcp-codegen/runtime";
import { formatObservationLog } from "@pmcp-codegen/runtime/internal";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Bundle } from "../../src/bundle/types.js";
import { readLogs } from "../../src/learn/observation-logs.js";
import { qualityReport } from "../../src/report/quality-report.js";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-report-counts-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** As pmcp dev leaves it: the block written at 5 observations, the level it reached then; later calls only raised the counts. */
const bundle: Bundle = {
  version: "1.0",
  servers: [
    {
      id: "learning",
      tools: [{ name: "count", inputSchema: { type: "object" } }],
      inferred: [
        {
          tool: "count",
          schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
          observations: 5,
          seen: 5,
          firstSeen: "2026-01-01T00:00:00.000Z",
          lastSeen: "2026-01-01T00:00:00.000Z",
          redacted: false,
          consistency: 1,
          quality: "low",
          fields: [{ path: "/count", presence: 1, types: { integer: 5 } }],
        },
      ],
    },
  ],
};

describe("pmcp report's counts", () => {
  it("are the observation logs' when it has them: the observations, the most used and the advice agree with the logs", async () => {
    const at = "2026-01-01T00:00:00.000Z";
    const path = observationPath(dir, "learning", "count");
    await mkdir(dirname(path), { recursive: true });
    const samples = [...Array.from({ length: 6 }, (_, count) => ({ at, value: { count } })), { at, content: ["text"] }];
    const header = {
      format: "pmcp-observations/1" as const,
      server: "learning",
      tool: "count",
      seen: 7,
      firstSeen: at,
      lastSeen: at,
      redacted: false,
    };
    await writeFile(path, formatObservationLog({ header, samples }));
    const { logs } = await readLogs(dir);
    const report = qualityReport(bundle, { logs });
    expect(report.servers.map(({ id, observations }) => [id, observations])).toEqual([["learning", 6]]);
    expect(report.mostUsed).toEqual([{ server: "learning", tool: "count", calls: 7 }]);
    expect(report.recommendations.moreObservations).toEqual([{ server: "learning", tool: "count", observations: 6 }]);
    // The quality is still the bundle's: what the clients were generated from.
    expect(report.servers[0]!.byQuality.low).toBe(1);
  });

  it("are the bundle's without logs", () => {
    const report = qualityReport(bundle);
    expect([report.servers[0]!.observations, report.mostUsed[0]!.calls]).toEqual([5, 5]);
  });
});
