import { describe, expect, it } from "vitest";
import { inspectTool } from "../../src/inspect/describe-tool.js";
import { firstSentence } from "../../src/inspect/list-tools.js";
import { modelTools } from "../../src/inspect/model-view.js";
import { MODEL_BUNDLE } from "../helpers/model-bundle.js";

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

  describe("as a profile's model sees it", () => {
    const bundle = MODEL_BUNDLE;

    it("finds a tool by the name its model calls it, and only under a profile", () => {
      const outcome = inspectTool(bundle, "shop__search", "gemini");
      expect(outcome.found && [outcome.inspection.name, outcome.inspection.modelName]).toEqual(["shop/search", "shop__search"]);
      expect(inspectTool(bundle, "shop__search")).toEqual({ found: false, message: "[Tool not found] 'shop__search' is not available" });
    });

    it("gives the normalized schemas, the model's name, the profile applied and every note", () => {
      const outcome = inspectTool(bundle, "shop/search", "gemini");
      if (!outcome.found) throw new Error(outcome.message);
      const { resultType: _, ...inspection } = outcome.inspection;
      expect(inspection).toEqual({
        name: "shop/search",
        description: "",
        inputSchema: {
          type: "object",
          properties: {
            level: { type: "string", enum: ["1", "2", "3"] },
            data: { type: "string", description: "Anything (JSON text)" },
            meta: { type: "string", description: 'Schema: {"type":"object"} (JSON text)' },
          },
          required: ["level"],
        },
        outputSchema: { type: "object", properties: { any: { type: "string", description: "(JSON text)" } } },
        source: "declared",
        quality: "high",
        modelName: "shop__search",
        profile: "gemini",
        strict: false,
        modelNotes: [
          {
            pointer: "/name",
            kind: "renamed",
            message: 'named "shop__search" for the model: server "docs" also has a tool "search"',
          },
          {
            pointer: "/inputSchema/properties/level",
            kind: "enum-to-strings",
            message: "enum values became strings; the caller must convert them back",
          },
          ...["/inputSchema/properties/data", "/inputSchema/properties/meta", "/outputSchema/properties/any"].map((pointer) => ({
            pointer,
            kind: "json-text",
            message: "no provider form keeps this value's shape: the model sends it as JSON text",
          })),
        ],
      });
    });

    it("names the profile applied: a strict one's fallback for a tool past its limits", () => {
      const outcome = inspectTool(bundle, "shop/pick", "openai-strict");
      if (!outcome.found) throw new Error(outcome.message);
      expect([outcome.inspection.profile, outcome.inspection.strict, outcome.inspection.modelNotes?.map((note) => note.kind)]).toEqual([
        "openai",
        false,
        ["non-strict"],
      ]);
    });

    it("without a profile, is the inspection as declared, with no model fields", () => {
      const outcome = inspectTool(bundle, "docs/search");
      if (!outcome.found) throw new Error(outcome.message);
      expect(Object.keys(outcome.inspection)).toEqual([
        "name",
        "description",
        "inputSchema",
        "outputSchema",
        "note",
        "resultType",
        "source",
        "quality",
      ]);
      expect(outcome.inspection.inputSchema).toBe(bundle.servers[1]?.tools[0]?.inputSchema);
    });

    it("normalizes a bundle once per profile, and a replaced bundle again", () => {
      const view = modelTools(bundle, "openai-strict");
      expect(modelTools(bundle, "openai-strict")).toBe(view);
      expect([...view].map(([name, { outcome }]) => [name, outcome.name, outcome.strict])).toEqual([
        ["shop/search", "shop__search", true],
        ["shop/tail", "tail", true],
        ["shop/pick", "pick", false],
        ["docs/search", "docs__search", true],
        ["docs/get", "get", true],
      ]);
      const replaced = { ...bundle, servers: bundle.servers.slice(1) };
      expect([...modelTools(replaced, "openai-strict")].map(([name, { outcome }]) => [name, outcome.name])).toEqual([
        ["docs/search", "search"],
        ["docs/get", "get"],
      ]);
      expect(modelTools(bundle, "gemini")).not.toBe(view);
    });
  });
});
