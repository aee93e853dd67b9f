import { describe, expect, it } from "vitest";
import { lintSchema } from "../../src/lint/lint.js";
import { describeModelChanges, type ModelChanges, modelChanges } from "../../src/lint/model-changes.js";
import { PROFILES } from "../../src/normalize/normalize.js";
import { MODEL_BUNDLE } from "../helpers/model-bundle.js";

describe("lint rules", () => {
  it.each([
    ["gemini", { type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "null" }] } } }, "null-union", true],
    ["gemini", { type: "object", properties: { a: { type: ["string", "null"] } } }, "type-array", true],
    ["openai-strict", { type: "object", properties: { p: { type: "array", prefixItems: [{ type: "number" }] } } }, "tuple", true],
    ["openai", { type: "object", properties: { list: { type: "array" } } }, "array-without-items", true],
    ["openai", { type: "object" }, "object-without-properties", true],
    // Fixed by wrapping the root: the model sends {"value": …}.
    ["anthropic", { anyOf: [{ type: "object" }, { type: "string" }] }, "root-combinator", true],
    ["openai-strict", { type: "object", properties: { d: { type: "string", format: "uri" } } }, "unsupported-format", true],
    ["gemini", { type: "object", properties: { n: { enum: [1, 2] } } }, "non-string-enum", true],
    ["openai-strict", { type: "object", properties: { x: { $ref: "https://example.com/x.json" } } }, "remote-ref", false],
  ])("%s: %j → %s (fixable: %s)", (profile, schema, rule, fixable) => {
    const finding = lintSchema(schema, profile as (typeof PROFILES)[number]).find((candidate) => candidate.rule === rule);
    expect(finding).toBeDefined();
    expect(finding?.fixable).toBe(fixable);
  });

  const strings = (count: number, length: number) => Array.from({ length: count }, (_, index) => String(index).padStart(length, "x"));
  const manyOptional = (count: number) => ({
    type: "object",
    properties: Object.fromEntries(Array.from({ length: count }, (_, index) => [`p${index}`, { type: "string" }])),
  });

  it.each([
    [
      "unknown keys",
      "gemini",
      "unknown-keyword",
      true,
      { type: "object", properties: { a: { type: "string", readOnly: true, "x-ui": "text" } } },
    ],
    ["empty properties", "gemini", "empty-object", true, { type: "object", properties: { o: { type: "object", properties: {} } } }],
    // Fixed by JSON text: no portable form has no properties.
    ["object without properties", "portable", "empty-object", true, { type: "object", properties: { o: { type: "object" } } }],
    [
      "nested empty properties",
      "portable",
      "empty-object",
      true,
      { type: "object", properties: { o: { type: "object", properties: {} } } },
    ],
    [
      "typeless properties",
      "gemini",
      "properties-on-non-object",
      true,
      { type: "object", properties: { o: { properties: { x: { type: "string" } } } } },
    ],
    [
      "properties on a string",
      "gemini",
      "properties-on-non-object",
      false,
      { type: "object", properties: { s: { type: "string", properties: { x: { type: "string" } } } } },
    ],
    [
      "anyOf beside description",
      "gemini",
      "anyof-with-siblings",
      false,
      { type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "integer" }], description: "id" } } },
    ],
    [
      "uniqueItems",
      "openai-strict",
      "strict-unsupported-keyword",
      true,
      { type: "object", properties: { t: { type: "array", items: { type: "string" }, uniqueItems: true } } },
    ],
    [
      "not",
      "openai-strict",
      "strict-unsupported-keyword",
      true,
      { type: "object", properties: { n: { type: "integer", not: { const: 0 } } } },
    ],
    ["draft-07 tuple", "anthropic", "tuple", true, { type: "object", properties: { p: { type: "array", items: [{ type: "number" }] } } }],
    [
      "allOf with $ref",
      "anthropic-strict",
      "all-of",
      true,
      {
        type: "object",
        $defs: { A: { type: "object", properties: { x: { type: "string" } } } },
        properties: { a: { allOf: [{ $ref: "#/$defs/A" }, { description: "a" }] } },
      },
    ],
    [
      "minItems 2",
      "anthropic-strict",
      "unsupported-constraint",
      true,
      { type: "object", properties: { l: { type: "array", items: { type: "string" }, minItems: 2 } } },
    ],
    // Fixed by JSON text: the model writes the value, one of the enum's, as JSON.
    ["object enum value", "anthropic-strict", "complex-enum", true, { type: "object", properties: { c: { enum: [{ x: 1 }, "y"] } } }],
    [
      "backreference",
      "anthropic-strict",
      "regex-features",
      false,
      { type: "object", properties: { w: { type: "string", pattern: "^(\\w)\\1$" } } },
    ],
    ["25 optional parameters", "anthropic-strict", "strict-limits", false, manyOptional(25)],
    [
      "17 union parameters",
      "anthropic-strict",
      "strict-limits",
      false,
      {
        type: "object",
        properties: Object.fromEntries(Array.from({ length: 17 }, (_, index) => [`u${index}`, { type: ["string", "null"] }])),
      },
    ],
    [
      "1,200 enum values in two enums",
      "openai-strict",
      "strict-limits",
      false,
      { type: "object", properties: { a: { enum: strings(600, 3) }, b: { enum: strings(600, 3) } } },
    ],
    ["15,000-character enum", "openai-strict", "strict-limits", false, { type: "object", properties: { a: { enum: strings(300, 60) } } }],
    [
      "120,000 characters of names",
      "openai-strict",
      "strict-limits",
      false,
      {
        type: "object",
        properties: Object.fromEntries(Array.from({ length: 5 }, (_, index) => [`${index}`.padEnd(25_000, "n"), { type: "string" }])),
      },
    ],
  ])("verified facts: %s (%s: %s, fixable: %s)", (_label, profile, rule, fixable, schema) => {
    const finding = lintSchema(schema, profile as (typeof PROFILES)[number]).find((candidate) => candidate.rule === rule);
    expect(finding, JSON.stringify(lintSchema(schema, profile as (typeof PROFILES)[number]))).toBeDefined();
    expect(finding?.fixable).toBe(fixable);
  });

  it.each([
    [
      "Schema fields only",
      "gemini",
      "unknown-keyword",
      {
        type: "object",
        title: "T",
        propertyOrdering: ["a"],
        properties: { a: { type: "string", nullable: true, example: "x", minLength: 1 } },
      },
    ],
    ["object without properties (unconfirmed)", "gemini", "empty-object", { type: "object", properties: { m: { type: "object" } } }],
    [
      "typed object",
      "gemini",
      "properties-on-non-object",
      { type: "object", properties: { o: { type: "object", properties: { x: { type: "string" } }, required: ["x"] } } },
    ],
    [
      "anyOf alone",
      "gemini",
      "anyof-with-siblings",
      { type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "integer" }] } } },
    ],
    [
      "supported strict keywords",
      "openai-strict",
      "strict-unsupported-keyword",
      {
        type: "object",
        properties: {
          t: { type: "array", items: { type: "string", pattern: "^a", format: "email" }, minItems: 1 },
          n: { type: "number", exclusiveMinimum: 0, multipleOf: 2 },
        },
      },
    ],
    ["root not", "anthropic", "root-combinator", { type: "object", not: { required: ["a"] }, properties: { a: { type: "string" } } }],
    ["prefixItems", "anthropic", "tuple", { type: "object", properties: { p: { type: "array", prefixItems: [{ type: "number" }] } } }],
    [
      "allOf without $ref",
      "anthropic-strict",
      "all-of",
      { type: "object", properties: { a: { allOf: [{ type: "object", properties: { x: { type: "string" } } }, { required: ["x"] }] } } },
    ],
    [
      "minItems 1",
      "anthropic-strict",
      "unsupported-constraint",
      { type: "object", properties: { l: { type: "array", items: { type: "string" }, minItems: 1 } } },
    ],
    ["primitive enum values", "anthropic-strict", "complex-enum", { type: "object", properties: { c: { enum: ["a", 1, true, null] } } }],
    [
      "escaped backslash before b",
      "anthropic-strict",
      "regex-features",
      { type: "object", properties: { w: { type: "string", pattern: "^\\\\b[a-z]+$" } } },
    ],
    ["24 optional parameters", "anthropic-strict", "strict-limits", manyOptional(24)],
    ["900 enum values", "openai-strict", "strict-limits", { type: "object", properties: { a: { enum: strings(900, 3) } } }],
    [
      "long enum of 200 values, short enum of 300",
      "openai-strict",
      "strict-limits",
      { type: "object", properties: { a: { enum: strings(300, 40) }, b: { enum: strings(200, 100) } } },
    ],
  ])("verified facts: %s (%s accepts it: no %s)", (_label, profile, rule, schema) => {
    expect(lintSchema(schema, profile as (typeof PROFILES)[number]).map((finding) => finding.rule)).not.toContain(rule);
  });

  it.each([
    [
      "pointers are escaped",
      "gemini",
      { type: "object", properties: { "a/b": { type: ["string", "null"] }, "c~d": { const: "x" } } },
      [
        ["type-array", "/properties/a~1b"],
        ["untyped-node", "/properties/c~0d"],
        ["const", "/properties/c~0d"],
      ],
    ],
    [
      "name maps and name lists are not read as schemas",
      "gemini",
      {
        type: "object",
        properties: { a: { type: "string" }, b: { type: "string" } },
        dependentSchemas: { a: { required: ["b"] }, const: { required: ["a"] } },
        dependentRequired: { type: ["a"] },
        dependencies: { b: ["a"] },
      },
      [
        ["unknown-keyword", "/"],
        ["untyped-node", "/dependentSchemas/a"],
        ["properties-on-non-object", "/dependentSchemas/a"],
        ["untyped-node", "/dependentSchemas/const"],
        ["properties-on-non-object", "/dependentSchemas/const"],
      ],
    ],
    [
      "properties named like keywords",
      "gemini",
      {
        type: "object",
        properties: { type: { type: "string" }, enum: { type: "string" }, anyOf: { type: "string" }, properties: { type: "string" } },
      },
      [],
    ],
  ])("%s (%s)", (_label, profile, schema, want) => {
    expect(lintSchema(schema, profile as (typeof PROFILES)[number]).map((finding) => [finding.rule, finding.pointer])).toEqual(want);
  });

  it("a plain schema has no findings where it is accepted, and strict modes ask for closed objects", () => {
    const plain = { type: "object", properties: { q: { type: "string", description: "query" } }, required: ["q"] };
    for (const profile of PROFILES.filter((name) => !name.endsWith("-strict"))) expect(lintSchema(plain, profile), profile).toEqual([]);
    for (const profile of ["openai-strict", "anthropic-strict"] as const) {
      expect(lintSchema(plain, profile).map((finding) => [finding.rule, finding.fixable])).toEqual([
        ["strict-additional-properties", true],
      ]);
    }
  });
});

describe("what the model sees changed", () => {
  // shop/search's output schema holds a free-form value too: the model never sees an output schema, so it is no change for it.
  it("lists per tool, in bundle order, each profile's renames, encodings and non-strict fallbacks, one line each", () => {
    const changes = modelChanges(MODEL_BUNDLE, ["gemini", "openai-strict"]);
    expect(
      changes.map((tool) => tool.map((entry) => `${entry.profile} ${entry.server}/${entry.tool}: ${describeModelChanges(entry)}`)),
    ).toEqual([
      [
        'gemini shop/search: renamed "shop__search"; 1 enum as strings (/inputSchema/properties/level); 2 values as JSON text (/inputSchema/properties/data, /inputSchema/properties/meta)',
        'openai-strict shop/search: renamed "shop__search"; 2 values as JSON text (/inputSchema/properties/data, /inputSchema/properties/meta); optional properties as required+nullable in 1 object (/inputSchema)',
      ],
      [
        'gemini shop/tail: the root is not an object: its value is sent as the property "value"',
        'openai-strict shop/tail: the root is not an object: its value is sent as the property "value"',
      ],
      ["openai-strict shop/pick: declared without strict mode: past OpenAI strict's limits: 1001 enum values in all (at most 1,000)"],
      [
        'gemini docs/search: renamed "docs__search"',
        'openai-strict docs/search: renamed "docs__search"; optional properties as required+nullable in 1 object (/inputSchema)',
      ],
      [],
    ]);
    expect(changes[3]?.[1]).toEqual({
      server: "docs",
      tool: "search",
      profile: "openai-strict",
      name: "docs__search",
      strict: true,
      changes: [
        {
          kind: "renamed",
          pointer: "/name",
          message: 'named "docs__search" for the model: server "shop" also has a tool "search"',
        },
        {
          kind: "optional-to-nullable",
          pointer: "/inputSchema",
          message: "optional properties q became required and nullable (send null to omit)",
        },
      ],
    });
    expect(changes[2]?.[0]).toMatchObject({ profile: "openai-strict", strict: false });
  });

  it("shows three pointers of a kind and leaves the rest to --json", () => {
    const properties = Object.fromEntries(["a", "b", "c", "d"].map((name) => [name, { description: name }]));
    const [[gemini]] = modelChanges(
      {
        version: "1.0",
        servers: [{ id: "s", tools: [{ name: "t", inputSchema: { type: "object", properties, required: ["a", "b", "c", "d"] } }] }],
      },
      ["gemini"],
    ) as [[ModelChanges]];
    expect(describeModelChanges(gemini)).toBe(
      "4 values as JSON text (/inputSchema/properties/a, /inputSchema/properties/b, /inputSchema/properties/c, …)",
    );
  });
});
