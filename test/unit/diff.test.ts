import { describe, expect, it } from "vitest";
import type { Bundle } from "../../src/bundle/types.js";
import { diffBundles } from "../../src/diff/bundle-diff.js";
import { formatGithub, formatJunit } from "../../src/diff/format.js";
import { type Direction, diffSchemas } from "../../src/diff/schema-diff.js";

const object = (properties: Record<string, unknown>, required: string[] = [], extra: Record<string, unknown> = {}) => ({
  type: "object",
  properties,
  required,
  ...extra,
});

/** Each rule in both directions: [name, before, after, level as a request, level as a response]. */
const RULES: [string, unknown, unknown, string, string][] = [
  ["property removed", object({ a: { type: "string" }, b: { type: "string" } }), object({ a: { type: "string" } }), "breaking", "breaking"],
  ["optional property added", object({ a: { type: "string" } }), object({ a: { type: "string" }, b: { type: "string" } }), "safe", "safe"],
  [
    "required property added",
    object({ a: { type: "string" } }),
    object({ a: { type: "string" }, b: { type: "string" } }, ["b"]),
    "breaking",
    "safe",
  ],
  ["property made optional", object({ a: { type: "string" } }, ["a"]), object({ a: { type: "string" } }), "safe", "breaking"],
  ["property made required", object({ a: { type: "string" } }), object({ a: { type: "string" } }, ["a"]), "breaking", "safe"],
  ["type widened integer → number", object({ n: { type: "integer" } }), object({ n: { type: "number" } }), "safe", "breaking"],
  ["type narrowed number → integer", object({ n: { type: "number" } }), object({ n: { type: "integer" } }), "breaking", "safe"],
  ["made nullable", object({ s: { type: "string" } }), object({ s: { type: ["string", "null"] } }), "safe", "breaking"],
  ["type changed", object({ s: { type: "string" } }), object({ s: { type: "boolean" } }), "breaking", "breaking"],
  ["enum value added", object({ e: { enum: ["a", "b"] } }), object({ e: { enum: ["a", "b", "c"] } }), "safe", "breaking"],
  ["enum value removed", object({ e: { enum: ["a", "b"] } }), object({ e: { enum: ["a"] } }), "breaking", "safe"],
  [
    "maxLength tightened",
    object({ s: { type: "string", maxLength: 10 } }),
    object({ s: { type: "string", maxLength: 5 } }),
    "breaking",
    "safe",
  ],
  ["minimum loosened", object({ n: { type: "number", minimum: 5 } }), object({ n: { type: "number", minimum: 0 } }), "safe", "breaking"],
  ["new pattern", object({ s: { type: "string" } }), object({ s: { type: "string", pattern: "^a" } }), "breaking", "safe"],
  [
    "closed to extra keys",
    object({ a: { type: "string" } }),
    object({ a: { type: "string" } }, [], { additionalProperties: false }),
    "breaking",
    "safe",
  ],
  [
    "nested in $ref and arrays",
    { type: "array", items: { $ref: "#/$defs/I" }, $defs: { I: object({ id: { type: "string" } }, ["id"]) } },
    { type: "array", items: { $ref: "#/$defs/I" }, $defs: { I: object({ id: { type: "string" } }) } },
    "safe",
    "breaking",
  ],
];

describe("schema diff rules", () => {
  it.each(RULES)("%s", (_name, before, after, asRequest, asResponse) => {
    for (const [direction, expected] of [
      ["request", asRequest],
      ["response", asResponse],
    ] as [Direction, string][]) {
      const changes = diffSchemas(before, after, direction);
      expect(changes.length, direction).toBeGreaterThan(0);
      const worst = changes.some((change) => change.level === "breaking")
        ? "breaking"
        : changes.some((change) => change.level === "dangerous")
          ? "dangerous"
          : "safe";
      expect(worst, `${direction}: ${JSON.stringify(changes)}`).toBe(expected);
    }
  });

  it("reports nothing for the same schema written differently (nullable spellings, $ref vs inline)", () => {
    const a = object({ c: { anyOf: [{ $ref: "#/$defs/C" }, { type: "null" }] } }, ["c"], { $defs: { C: { type: "string" } } });
    const b = object({ c: { type: ["string", "null"] } }, ["c"]);
    expect(diffSchemas(a, b, "response")).toEqual([]);
    expect(diffSchemas(a, b, "request")).toEqual([]);
  });
});

describe("schema diff through shared and recursive definitions", () => {
  const node = (required: string[]) => ({
    type: "object",
    properties: { x: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
    required,
  });
  const tree = (required: string[]) => ({
    type: "object",
    properties: { tree: { $ref: "#/$defs/Node" } },
    $defs: { Node: node(required) },
  });

  it("reports a change inside a recursive definition once, at the definition", () => {
    expect(diffSchemas(tree([]), tree(["x"]), "request")).toEqual([
      { level: "breaking", rule: "property-now-required", pointer: "/$defs/Node/properties/x", message: 'property "x" is now required' },
    ]);
    const bundle = (required: string[]): Bundle => ({
      version: "1.0",
      servers: [{ id: "s", tools: [{ name: "t", inputSchema: tree(required) }] }],
    });
    expect(diffBundles(bundle([]), bundle(["x"]))).toEqual([
      {
        server: "s",
        tool: "t",
        level: "breaking",
        rule: "property-now-required",
        pointer: "/inputSchema/$defs/Node/properties/x",
        message: 'property "x" is now required',
      },
    ]);
  });

  it("reports a change in a definition shared by two properties once", () => {
    const shared = (id: string) => ({
      type: "object",
      properties: { from: { $ref: "#/$defs/Place" }, to: { $ref: "#/$defs/Place" } },
      $defs: { Place: { type: "object", properties: { id: { type: id } } } },
    });
    expect(diffSchemas(shared("string"), shared("integer"), "response")).toEqual([
      { level: "breaking", rule: "type-changed", pointer: "/$defs/Place/properties/id", message: "type changed from string to integer" },
    ]);
  });

  it("follows mutual recursion A → B → A and reports a change in B once", () => {
    const mutual = (bound: Record<string, unknown>) => ({
      type: "object",
      properties: { start: { $ref: "#/$defs/A" } },
      $defs: {
        A: { type: "object", properties: { b: { $ref: "#/$defs/B" } } },
        B: { type: "object", properties: { a: { $ref: "#/$defs/A" }, n: { type: "number", ...bound } } },
      },
    });
    expect(diffSchemas(mutual({}), mutual({ maximum: 10 }), "request")).toEqual([
      { level: "breaking", rule: "constraint-tightened", pointer: "/$defs/B/properties/n", message: "maximum none → 10" },
    ]);
  });

  it("reports a change below the IR's nesting limit, where it is compared as JSON", () => {
    const nested = (leaf: string) => {
      let schema: Record<string, unknown> = { type: "object", properties: { leaf: { type: leaf } } };
      for (let level = 0; level < 80; level++) schema = { type: "object", properties: { child: schema } };
      return schema;
    };
    expect(diffSchemas(nested("string"), nested("string"), "request")).toEqual([]);
    expect(diffSchemas(nested("string"), nested("boolean"), "request")).toEqual([
      {
        level: "dangerous",
        rule: "nested-too-deep",
        pointer: "/properties/child".repeat(65),
        message: "changed where the schema nests too deep to compare in detail",
      },
    ]);
  });

  it("finds a change 50 levels deep in nested objects", () => {
    const nested = (leaf: string) => {
      let schema: Record<string, unknown> = { type: "object", properties: { leaf: { type: leaf } } };
      for (let level = 0; level < 50; level++) schema = { type: "object", properties: { child: schema } };
      return schema;
    };
    expect(diffSchemas(nested("string"), nested("boolean"), "response")).toEqual([
      {
        level: "breaking",
        rule: "type-changed",
        pointer: `${"/properties/child".repeat(50)}/properties/leaf`,
        message: "type changed from string to boolean",
      },
    ]);
  });
});

describe("bundle diff", () => {
  const tool = (annotations: Record<string, unknown>) => ({
    name: "t",
    inputSchema: { type: "object" },
    outputSchema: { type: "object" },
    annotations,
  });
  const bundle = (tools: Bundle["servers"][number]["tools"]): Bundle => ({ version: "1.0", servers: [{ id: "s", tools }] });

  it("judges annotations, output type names and output schema presence", () => {
    const rules = (before: Record<string, unknown>, after: Record<string, unknown>) =>
      diffBundles(bundle([tool(before)]), bundle([tool(after)])).map((change) => `${change.level}:${change.rule}`);
    expect(rules({ readOnlyHint: true }, {})).toContain("dangerous:readOnlyHint-changed");
    expect(rules({ destructiveHint: false }, {})).toContain("dangerous:destructiveHint-changed");
    expect(rules({}, { readOnlyHint: true })).toEqual(["safe:readOnlyHint-changed"]);
    expect(rules({ "pmcp:outputTypeName": "A" }, { "pmcp:outputTypeName": "B" })).toContain("breaking:output-type-renamed");
    const untyped = diffBundles(bundle([tool({})]), bundle([{ name: "t", inputSchema: { type: "object" } }]));
    expect(untyped.map((change) => change.rule)).toContain("output-schema-removed");
  });

  it("judges a change of protocol era as dangerous and a newer revision of the same era as safe", () => {
    const at = (protocolVersion: string): Bundle => ({ version: "1.0", servers: [{ id: "s", protocolVersion, tools: [] }] });
    const changes = (before: string, after: string) =>
      diffBundles(at(before), at(after)).map((change) => [change.level, change.rule, change.pointer, change.message]);
    expect(changes("2025-11-25", "2026-07-28")).toEqual([
      [
        "dangerous",
        "protocol-version-changed",
        "/protocolVersion",
        "protocolVersion 2025-11-25 → 2026-07-28: clients connect in another protocol era",
      ],
    ]);
    expect(changes("2025-06-18", "2025-11-25")).toEqual([
      ["safe", "protocol-version-changed", "/protocolVersion", "protocolVersion 2025-06-18 → 2025-11-25"],
    ]);
  });

  it("names by key every other change of a server or a tool, judged or not", () => {
    const before: Bundle = {
      version: "1.0",
      servers: [
        {
          id: "s",
          serverInfo: { name: "S", version: "1.0.0" },
          instructions: "Old.",
          tools: [
            { name: "meta", inputSchema: { type: "object" }, _meta: { a: 1 } },
            { name: "described", inputSchema: { type: "object", properties: { q: { type: "string", description: "Old" } } } },
            { name: "both", title: "Old", inputSchema: { type: "object" }, icons: [] },
            { name: "same", inputSchema: { type: "object", required: [] } },
          ],
        },
      ],
    };
    const after: Bundle = {
      version: "1.0",
      servers: [
        {
          id: "s",
          serverInfo: { name: "S", version: "1.1.0" },
          instructions: "New.",
          tools: [
            { name: "meta", inputSchema: { type: "object" }, _meta: { a: 2 }, execution: { taskSupport: "optional" } },
            { name: "described", inputSchema: { type: "object", properties: { q: { type: "string", description: "New" } } } },
            { name: "both", title: "New", inputSchema: { type: "object" }, icons: [{ src: "https://example.com/i.png" }] },
            { inputSchema: { required: [], type: "object" }, name: "same" },
          ],
        },
      ],
    };
    expect(diffBundles(before, after).map((change) => `${change.tool ?? ""} ${change.rule}: ${change.message}`)).toEqual([
      " server-changed: serverInfo, instructions changed",
      "both description-changed: title or description changed",
      "both tool-changed: icons changed",
      "described tool-changed: inputSchema changed",
      "meta tool-changed: _meta, execution changed",
    ]);
  });

  it("escapes what it prints in GitHub annotations and JUnit XML", () => {
    const changes = [{ server: "s", tool: "a<b>", level: "breaking" as const, rule: "r", pointer: "/p", message: 'x & "y"\n::error::z' }];
    expect(formatGithub(changes)).toBe('::error title=breaking change%3A s/a<b> /p::x & "y"%0A::error::z [r]\n');
    const xml = formatJunit(changes, "breaking");
    expect(xml).toContain('name="s/a&lt;b&gt; /p: x &amp; &quot;y&quot;');
    expect(xml).toContain('tests="1" failures="1"');
  });
});
