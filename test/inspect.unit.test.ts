import { describe, expect, it } from "vitest";
import { inspectTool } from "../src/inspect/describe-tool.js";
import { firstSentence } from "../src/inspect/list-tools.js";

describe("inspection", () => {
  it("shows every helper type the result type uses, through other helpers, and no other", () => {
    const server = {
      id: "shop",
      tools: [
        {
          name: "get_order",
          inputSchema: { type: "object" },
          outputSchema: {
            type: "object",
            properties: { lines: { type: "array", items: { $ref: "#/$defs/Line" } } },
            required: ["lines"],
            $defs: {
              Line: { type: "object", properties: { tag: { $ref: "#/$defs/Tag" } }, required: ["tag"] },
              Tag: { type: "object", properties: { label: { type: "string" } }, required: ["label"] },
            },
          },
        },
        {
          name: "get_user",
          inputSchema: { type: "object" },
          outputSchema: {
            type: "object",
            properties: { user: { $ref: "#/$defs/User" } },
            $defs: { User: { type: "object", properties: { id: { type: "string" } } } },
          },
        },
      ],
    };
    const outcome = inspectTool({ version: "1.0", servers: [server] }, "shop/get_order");
    const text = outcome.found ? outcome.inspection.resultType : "";
    expect(text).toMatch(/^type GetOrderResult = \{\n {2}lines: Array<Line>;\n\};\ntype Line = \{\n {2}tag: Tag;\n\};\ntype Tag = \{/);
    expect(text).not.toContain("User");
  });

  it.each([
    ["the first sentence", "Reads a file. Returns its text.", "Reads a file."],
    ["a stop before a lowercase word is not an end", "Search files (e.g. *.ts) by glob. Slow.", "Search files (e.g. *.ts) by glob."],
    ["the first paragraph only", "Lists stations\n\nArgs: none", "Lists stations"],
    ["whitespace collapsed", "  Moves\n  a file  ", "Moves a file"],
    ["at most 160 characters", `${"word ".repeat(60)}end.`, `${"word ".repeat(32).trimEnd()}…`],
    ["empty stays empty", "", ""],
  ])("summaries: %s", (_, description, want) => {
    expect(firstSentence(description)).toBe(want);
    expect(Array.from(firstSentence(description)).length).toBeLessThanOrEqual(160);
  });
});
