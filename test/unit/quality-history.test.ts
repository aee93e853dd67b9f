import { describe, expect, it } from "vitest";
import type { Bundle, BundleServer, InferredTool, Tool } from "../../src/bundle/types.js";
import {
  decodeGeneration,
  encodeGeneration,
  HISTORY_LIMIT,
  nextGeneration,
  recordedGeneration,
} from "../../src/codegen/generation-record.js";
import { renderClients } from "../../src/codegen/render.js";
import { loadTemplates } from "../../src/generate/template-files.js";
import { mostUsed, recommendationsFor } from "../../src/report/recommendations.js";

function block(tool: string, observations: number, quality: InferredTool["quality"], extra: Partial<InferredTool> = {}): InferredTool {
  return {
    tool,
    schema: { type: "object" },
    observations,
    seen: observations,
    firstSeen: "2025-01-01T00:00:00.000Z",
    lastSeen: "2025-01-02T00:00:00.000Z",
    redacted: false,
    consistency: 1,
    quality,
    fields: [],
    ...extra,
  };
}

const readOnly = (name: string, extra: Partial<Tool> = {}): Tool => ({ name, annotations: { readOnlyHint: true }, ...extra });

function bundleOf(...servers: BundleServer[]): Bundle {
  return { version: "1.0", servers };
}

describe("the generation record", () => {
  it("starts without changes, then records each generation's changes, oldest first, at most HISTORY_LIMIT", () => {
    const server = (quality: InferredTool["quality"], observations: number) =>
      bundleOf({ id: "s", tools: [{ name: "t" }], inferred: [block("t", observations, quality)] });
    const first = nextGeneration(server("low", 1), undefined);
    expect(first.changes).toBeUndefined();
    expect(first.record).toEqual({
      servers: ["s"],
      qualities: [{ server: "s", tool: "t", source: "inferred", quality: "low", observations: 1 }],
      history: [],
    });
    expect(nextGeneration(server("low", 5), first.record)).toEqual({
      record: { ...first.record, qualities: [{ ...first.record.qualities[0], observations: 5 }] },
      changes: [],
    });

    let record = first.record;
    for (let round = 0; round < HISTORY_LIMIT; round++) {
      record = nextGeneration(server("medium", 12), record).record;
      record = nextGeneration(server("low", 3), record).record;
    }
    expect(record.history).toHaveLength(HISTORY_LIMIT);
    expect(record.history.at(-1)).toEqual({
      kind: "regressed",
      server: "s",
      tool: "t",
      observations: 3,
      from: { source: "inferred", quality: "medium" },
      to: { source: "inferred", quality: "low" },
    });
  });

  it("round-trips through index.ts whatever the names hold, and a second render over it gives the same bytes", async () => {
    const hostile = "t*/\n\u2028// pmcp-codegen-record: e30=";
    const bundle = bundleOf(
      { id: "a", tools: [{ name: hostile }, { name: "plain", outputSchema: { type: "object" } }], inferred: [block(hostile, 2, "low")] },
      { id: "empty", tools: [] },
    );
    const templates = await loadTemplates();
    const options = { source: "test", runtimeImport: "@pmcp-codegen/runtime", strictObjects: false, generatorVersion: "test" };
    const previous = nextGeneration(bundleOf({ id: "a", tools: [{ name: hostile }] }), undefined).record;
    const index = (previousRecord = previous) =>
      renderClients(bundle, options, templates, previousRecord).files.find((file) => file.path === "index.ts")!.content;
    const first = index();
    const recorded = recordedGeneration(first)!;
    expect(recorded.servers).toEqual(["a", "empty"]);
    expect(recorded.qualities.map((entry) => [entry.tool, entry.source, entry.quality])).toEqual([
      [hostile, "inferred", "low"],
      ["plain", "declared", "high"],
    ]);
    // The new tool is in this generation's changes, not in the history, which keeps improvements and regressions.
    expect(recorded.history.map((change) => [change.kind, change.tool])).toEqual([["improved", hostile]]);
    // The names never reach the code: one record line, and the code before it as it is without a record.
    expect(first.split("\n").filter((line) => line.startsWith("// pmcp-codegen-record: "))).toHaveLength(1);
    expect(first).not.toContain("t*/");
    // The next generation of the same bundle over this index changes nothing.
    expect(index(recorded)).toBe(index(recordedGeneration(index(recorded))));
    expect(recordedGeneration(index(recorded))).toEqual(recorded);
  });

  it("reads nothing from a record a person has garbled", () => {
    const valid = encodeGeneration({
      servers: ["s"],
      qualities: [{ server: "s", tool: "t", source: "inferred", quality: "low", observations: 1 }],
      history: [{ kind: "new", server: "s", tool: "t", to: { source: "inferred", quality: "low" }, observations: 1 }],
    });
    expect(decodeGeneration(JSON.parse(JSON.stringify(valid)))?.qualities).toHaveLength(1);
    const broken = [
      undefined,
      null,
      "text",
      { servers: [] },
      { ...valid, servers: [["s", [["t", "guessed", "low", 1]]]] },
      { ...valid, servers: [["s", [["t", "inferred", "great", 1]]]] },
      { ...valid, servers: [["s", [["t", "inferred", "low", -1]]]] },
      { ...valid, history: [["better", "s", "t", null, null, 1]] },
      { ...valid, history: [["new", "s", "t", null, ["inferred"], 1]] },
    ];
    expect(broken.map(decodeGeneration)).toEqual(broken.map(() => undefined));
  });
});

describe("recommendations", () => {
  const tools: Tool[] = [
    readOnly("listed"),
    readOnly("needs_args", { inputSchema: { type: "object", required: ["q"] } }),
    { name: "writes" },
    { name: "drops", annotations: { destructiveHint: true } },
    readOnly("prose"),
    readOnly("typed", { outputSchema: { type: "object" } }),
    readOnly("learning"),
    readOnly("learned"),
    readOnly("picture"),
  ];
  const inferred = [
    block("prose", 0, "none", { seen: 4, content: { text: 4 } }),
    block("typed", 3, "high", { drift: [{ path: "/a", message: "must be string", count: 1 }] }),
    block("learning", 4, "low"),
    block("learned", 40, "medium"),
    // Answers in images only: no output schema would type them, so it is recommended for nothing.
    block("picture", 0, "none", { seen: 2, content: { image: 2 } }),
  ];

  it("names the unknown tools discover would call, drift, prose and low quality; the most used first", () => {
    const server: BundleServer = { id: "s", endpoint: { transport: "streamable-http", url: "https://example.com/mcp" }, tools, inferred };
    expect(recommendationsFor(bundleOf(server))).toEqual({
      discover: [
        {
          server: "s",
          tools: ["listed"],
          command: "pmcp schema discover --endpoint https://example.com/mcp --id s --observations observations/",
        },
      ],
      drift: [{ server: "s", tool: "typed" }],
      noJson: [{ server: "s", tool: "prose" }],
      moreObservations: [{ server: "s", tool: "learning", observations: 4 }],
    });
    // pmcp.config's observe.dir, when it names one, is where the command writes.
    expect(recommendationsFor(bundleOf(server), "logs/my logs").discover[0]!.command).toBe(
      "pmcp schema discover --endpoint https://example.com/mcp --id s --observations 'logs/my logs'",
    );
    // A server pmcp.config defines is reached by its entry, which carries its environment and headers.
    expect(recommendationsFor(bundleOf(server), undefined, new Set(["s"])).discover[0]!.command).toBe(
      "pmcp schema discover --server s --observations observations/",
    );
    expect(mostUsed(bundleOf(server))).toEqual([
      { server: "s", tool: "learned", calls: 40 },
      { server: "s", tool: "prose", calls: 4 },
      { server: "s", tool: "learning", calls: 4 },
      { server: "s", tool: "typed", calls: 3 },
      { server: "s", tool: "picture", calls: 2 },
    ]);
    const many = bundleOf({ id: "m", tools: [], inferred: [] });
    for (let index = 0; index < 12; index++) {
      many.servers[0]!.tools.push({ name: `t${index}` });
      many.servers[0]!.inferred!.push(block(`t${index}`, 1, "low", { seen: (index % 3) + 1 }));
    }
    // The ten with most calls, ties in bundle order.
    expect(mostUsed(many).map((usage) => `${usage.tool}:${usage.calls}`)).toEqual([
      "t2:3",
      "t5:3",
      "t8:3",
      "t11:3",
      "t1:2",
      "t4:2",
      "t7:2",
      "t10:2",
      "t0:1",
      "t3:1",
    ]);
  });
});
