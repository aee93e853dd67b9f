import { formatIssues, formatJsonPath, interpolate, redactUrl, redactWrittenUrl } from "@pmcp-codegen/runtime/internal";
import { describe, expect, it } from "vitest";
import { findSchemaWarnings } from "../../src/bundle/schema-warnings.js";
import { slugServerId } from "../../src/bundle/server-naming.js";
import { splitCommandLine } from "../../src/commands/shared/stdio-command-line.js";

describe("redactUrl", () => {
  it.each([
    ["https://user:pw@host/mcp?token=abc&region=eu#frag", "https://host/mcp?region=eu"],
    ["http://127.0.0.1:3000/mcp?api_key=1&apiKey=2&access_token=3&sig=4&page=2", "http://127.0.0.1:3000/mcp?page=2"],
    ["https://host/mcp", "https://host/mcp"],
  ])("%s", (given, want) => expect(redactUrl(new URL(given))).toBe(want));
});

describe("redactWrittenUrl: the URL as written, so values from the environment never reach a bundle", () => {
  it.each([
    ["https://h/mcp/${TENANT}?key=${KEY}&a=1", "https://h/mcp/t-1?key=k&a=1", "https://h/mcp/${TENANT}?a=1"],
    ["${MCP_URL}", "https://secret-host/mcp?token=x", "${MCP_URL}"],
    ["https://${USER}:${PASS}@h/mcp", "https://u:p@h/mcp", "https://h/mcp"],
  ])("%s", (written, interpolated, want) => expect(redactWrittenUrl(written, new URL(interpolated))).toBe(want));
});

describe("interpolate", () => {
  const env = { TOKEN: "t", EMPTY: "" };
  it.each([
    ["Bearer ${TOKEN}", "Bearer t"],
    ["${env:TOKEN}", "t"],
    ["${MISSING:-fallback}", "fallback"],
    ["${EMPTY}", ""],
    ["no vars $TOKEN", "no vars $TOKEN"],
  ])("%s", (given, want) => expect(interpolate(given, "here", env)).toBe(want));
  it("names an unset variable", () =>
    expect(() => interpolate("${NOPE}", "--header X", env)).toThrow("--header X: environment variable NOPE is not set"));
});

describe("splitCommandLine", () => {
  it("splits like a shell and records args before interpolation", () => {
    process.env.PMCP_TEST_SECRET = "hidden";
    expect(splitCommandLine(`node "my server.js" --token \${PMCP_TEST_SECRET} 'a b'`)).toEqual({
      command: "node",
      args: ["my server.js", "--token", "hidden", "a b"],
      recorded: { command: "node", args: ["my server.js", "--token", "${PMCP_TEST_SECRET}", "a b"] },
    });
  });
});

describe("slugServerId (PMCP's rule)", () => {
  it.each([
    ["SQLite Explorer", "sqlite-explorer"],
    ["mcp-servers/everything", "mcp-servers-everything"],
    ["  Weird__Name!! v2 ", "weird-name-v2"],
    ["???", "server"],
  ])("%s", (given, want) => expect(slugServerId(given)).toBe(want));
});

describe("findSchemaWarnings", () => {
  const server = (schema: unknown) => ({ id: "s", tools: [{ name: "t", inputSchema: schema as Record<string, unknown> }] });
  it("resolves local pointers, anchors, nested $id resources and ignores data keywords", () => {
    const schema = {
      $defs: { A: { $anchor: "a", type: "string" }, "x/y": { type: "number" } },
      properties: {
        one: { $ref: "#/$defs/A" },
        two: { $ref: "#a" },
        three: { $ref: "#/$defs/x~1y" },
        four: { $ref: "#/properties/one" },
        enum: { $ref: "#" },
        nested: { $id: "https://example.com/inner", $defs: { B: {} }, properties: { b: { $ref: "#/$defs/B" } } },
      },
      default: { $ref: "#/nowhere" },
    };
    expect(findSchemaWarnings(server(schema))).toEqual([]);
  });
  it("reports dangling pointers, missing anchors and remote refs", () => {
    const warnings = findSchemaWarnings(
      server({ properties: { a: { $ref: "#/$defs/none" }, b: { $ref: "#missing" }, c: { $ref: "other.json#/x" } } }),
    );
    expect(warnings.map((warning) => warning.pointer)).toEqual([
      "/inputSchema/properties/a/$ref",
      "/inputSchema/properties/b/$ref",
      "/inputSchema/properties/c/$ref",
    ]);
  });
});

describe("formatIssues: the one way zod issues become text", () => {
  const issue = (path: PropertyKey[], message: string) => ({ code: "custom" as const, path, message, input: undefined });
  it("one line per issue at its JSON path, the root without one, then the count of the rest", () => {
    const issues = [
      issue([], "expected an object"),
      issue(["servers", 0, "my tool", "x"], "bad"),
      issue(["a"], "c"),
      issue(["b"], "d"),
      issue(["e"], "f"),
    ];
    expect(formatIssues("f.json", issues)).toBe(
      'f.json: expected an object\nf.json at servers[0]["my tool"].x: bad\nf.json at a: c\nf.json: and 2 more',
    );
    expect(formatIssues("f.json", issues, { max: 1, describePath: (path) => `<${path.length}>` })).toBe(
      "f.json: expected an object\nf.json: and 4 more",
    );
    expect(formatIssues("f.json", issues.slice(1, 2), { describePath: (path) => `<${path.length}>` })).toBe("f.json at <4>: bad");
  });
  it.each([
    [[], ""],
    [["a", "b_c", "$d"], "a.b_c.$d"],
    [[0, "a"], "[0].a"],
    [["a", "b.c", 2], 'a["b.c"][2]'],
  ])("formatJsonPath(%j) = %s", (path, text) => expect(formatJsonPath(path)).toBe(text));
});
