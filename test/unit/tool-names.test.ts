import { describe, expect, it } from "vitest";
import type { Bundle } from "../../src/bundle/types.js";
import { normalizeBundle } from "../../src/normalize/bundle.js";
import { modelToolNames } from "../../src/normalize/tool-names.js";

describe("tool names for the model", () => {
  it("keeps valid unique names, qualifies shared ones by server, and fits every name to the provider's rule", () => {
    const tools = [
      { server: "github", tool: "search" },
      { server: "gitlab", tool: "search" },
      { server: "fs", tool: "files.read" },
      { server: "fs", tool: "write" },
      { server: "9lives", tool: "x".repeat(80) },
    ];
    const names = (profile: "openai" | "gemini") => modelToolNames(tools, profile).map((entry) => entry.name);
    const long = names("openai")[4]!;
    expect(names("openai")).toEqual(["github__search", "gitlab__search", "fs__files_read", "write", long]);
    expect([long.length, long.startsWith(`9lives__${"x".repeat(47)}_`)]).toEqual([64, true]);
    // Gemini takes dots, and wants a letter or an underscore first.
    expect(names("gemini").slice(0, 4)).toEqual(["github__search", "gitlab__search", "files.read", "write"]);
    expect(names("gemini")[4]!.startsWith("_9lives__")).toBe(true);
    expect(modelToolNames(tools, "openai")[0]!.reason).toBe('server "gitlab" also has a tool "search"');
    expect(modelToolNames(tools, "openai")[2]!.reason).toBe('"files.read" does not match ^[a-zA-Z0-9_-]{1,64}$');
  });

  it("a qualified name that meets a tool's own name gets a number", () => {
    const tools = [
      { server: "a", tool: "a__x" },
      { server: "a", tool: "x" },
      { server: "b", tool: "x" },
    ];
    expect(modelToolNames(tools, "openai").map((entry) => entry.name)).toEqual(["a__x", "a__x_2", "b__x"]);
  });
});

describe("strict budgets", () => {
  const bundle = (tools: number, optional: number): Bundle => ({
    version: "1.0",
    servers: [
      {
        id: "s",
        tools: Array.from({ length: tools }, (_, index) => ({
          name: `t${index}`,
          inputSchema: {
            type: "object",
            properties: Object.fromEntries(Array.from({ length: optional }, (_, n) => [`p${n}`, { type: "string" }])),
          },
        })),
      },
    ],
  });

  it("anthropic-strict: past 20 strict tools or 24 optional parameters a tool is declared non-strict, with the budget named", () => {
    const many = normalizeBundle(bundle(22, 0), "anthropic-strict").outcomes;
    expect(many.map((outcome) => outcome.strict)).toEqual([...Array(20).fill(true), false, false]);
    expect(many[20]!.profile).toBe("anthropic");
    expect(many[20]!.notes.map((note) => note.message)).toEqual([
      "declared without strict mode: past Anthropic strict's budget of 20 strict tools per request",
    ]);
    const optional = normalizeBundle(bundle(3, 10), "anthropic-strict").outcomes;
    expect(optional.map((outcome) => outcome.strict)).toEqual([true, true, false]);
    expect(optional[2]!.notes[0]!.message).toBe(
      "declared without strict mode: past Anthropic strict's budget of 24 optional parameters per request (this tool has 10, 20 spent)",
    );
  });

  it("openai-strict: a tool past OpenAI strict's limits is declared non-strict; the others stay strict", () => {
    const outcomes = normalizeBundle(bundle(2, 0), "openai-strict").outcomes;
    expect(outcomes.map((outcome) => outcome.strict)).toEqual([true, true]);
    const wide = normalizeBundle(bundle(1, 5001), "openai-strict").outcomes[0]!;
    expect([wide.strict, wide.profile, wide.notes[0]!.message]).toEqual([
      false,
      "openai",
      "declared without strict mode: past OpenAI strict's limits: 5001 properties (at most 5,000)",
    ]);
  });
});
