import { ToolResult } from "@pmcp-codegen/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CompiledProgram } from "../../dist/exec/executor.js";
import { QuickJsExecutor } from "../../dist/exec/quickjs-executor.js";
import type { Bundle } from "../../src/bundle/types.js";
import { buildDeclarations } from "../../src/exec/declarations.js";
import { createProgramChecker } from "../../src/exec/type-check.js";

/** A content array no SDK-validated server would send: each block type whole and missing what it requires, among non-blocks. */
const CONTENT = [
  null,
  3,
  "text",
  [],
  { type: "text", text: 5 },
  { type: "text", text: "kept" },
  { type: "image" },
  { type: "image", data: "AA==", mimeType: "image/png" },
  { type: "audio", data: "AA==" },
  { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
  { type: "resource_link", uri: "file:///a" },
  { type: "resource_link", uri: "file:///a", name: "a" },
  { type: "resource", resource: null },
  { type: "resource", resource: { uri: "file:///b" } },
  { type: "resource", resource: { uri: "file:///b", text: "b" } },
  { type: "__proto__", text: "x" },
  { type: "video", uri: "file:///c" },
];

/** What each member holds: the content as sent, and only whole blocks of known types in the typed members (`blocks` last). */
const EXPECTED = [
  CONTENT,
  "kept",
  [{ type: "image", data: "AA==", mimeType: "image/png" }],
  [{ type: "audio", data: "UklGRg==", mimeType: "audio/wav" }],
  [{ type: "resource_link", uri: "file:///a", name: "a" }],
  [{ type: "resource", resource: { uri: "file:///b", text: "b" } }],
  [
    { type: "text", text: "kept" },
    { type: "image", data: "AA==", mimeType: "image/png" },
    { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
    { type: "resource_link", uri: "file:///a", name: "a" },
    { type: "resource", resource: { uri: "file:///b", text: "b" } },
  ],
];

const bundle: Bundle = { version: "1.0", servers: [{ id: "s", tools: [{ name: "page", inputSchema: { type: "object" } }] }] };
const globals: CompiledProgram["globals"] = { s: { page: { server: "s", tool: "page", returns: "content" } } };
let executor: QuickJsExecutor;

beforeAll(() => {
  executor = new QuickJsExecutor({ workers: 1 });
});

afterAll(async () => {
  await executor.close();
});

describe("a result whose content holds null, numbers and blocks missing a field", () => {
  it("reads alike through the runtime's ToolResult and in the sandbox, without a throw", async () => {
    const result = new ToolResult("s", "page", { content: CONTENT });
    expect([result.content, result.text, result.images, result.audio, result.resourceLinks, result.resources, result.blocks]).toEqual(
      EXPECTED,
    );
    const outcome = await executor.run(
      { code: "const r = await s.page(); return [r.content, r.text, r.images, r.audio, r.resourceLinks, r.resources, r.blocks];", globals },
      { call: async () => ({ content: CONTENT }) },
    );
    expect(outcome).toMatchObject({ ok: true, result: EXPECTED });
  });

  it("is typed as it may be in code mode: content and raw must be narrowed, the typed members need not", () => {
    const checker = createProgramChecker(buildDeclarations(bundle).text);
    const check = (code: string) =>
      checker.check(code).diagnostics.map((diagnostic) => `${diagnostic.line}:${diagnostic.column} ${diagnostic.message}`);
    expect(
      check(
        "const r = await s.page();\nreturn [r.images[0]?.data, r.resourceLinks.map((link) => link.uri), r.text, r.blocks.map((block) => block.type)];",
      ),
    ).toEqual([]);
    expect(check("const r = await s.page();\nreturn [r.content[0].type, r.raw.content.length];")).toEqual([
      "2:9 Object is possibly 'null'.",
      "2:22 Property 'type' does not exist on type 'string | number | boolean | JsonValue[] | { [key: string]: JsonValue; }'.\n  Property 'type' does not exist on type 'string'.",
      "2:28 'r.raw.content' is of type 'unknown'.",
    ]);
  });
});
