import { describe, expect, it } from "vitest";
import { jsonText } from "../../src/bundle/serialize.js";
import { lintSchema } from "../../src/lint/lint.js";
import { deepValue } from "../helpers/deep-schemas.js";

describe("schema lint on allOf nested 2,500 deep", () => {
  it("finds the $ref at the bottom from every allOf above it", () => {
    const DEPTH = 2500;
    const chain = `${'{"allOf":['.repeat(DEPTH)}{"$ref":"#/$defs/leaf"}${"]}".repeat(DEPTH)}`;
    const schema = JSON.parse(
      `{"type":"object","additionalProperties":false,"required":["deep"],"properties":{"deep":${chain}},"$defs":{"leaf":{"type":"string"}}}`,
    );
    const messages = lintSchema(schema, "anthropic-strict").map((finding) => finding.message);
    expect(new Set(messages)).toEqual(new Set(["allOf with $ref is not supported; inline the references"]));
    expect(messages).toHaveLength(DEPTH);
  });
});

describe("jsonText", () => {
  const value = {
    a: [1, "two", null, true, [], {}, [[{}]], undefined],
    'key with "quotes"\u2028': { nested: { deeper: [-0.5, 1e21, "é", "\u0007\ud800"] }, skipped: undefined },
    2: "an index key, written first",
    empty: "",
  };
  /** `inner` under `depth` objects `{ a: … }`. */
  const wrapped = (depth: number, inner: unknown) => {
    let result = inner;
    for (let level = 0; level < depth; level++) result = { a: result };
    return result;
  };

  it("writes what JSON.stringify writes, at 0 and 2 spaces", () => {
    expect(jsonText(value)).toBe(JSON.stringify(value));
    expect(jsonText(value, 2)).toBe(JSON.stringify(value, null, 2));
  });

  it("writes the same text with its own stack where JSON.stringify's recursion fails", () => {
    const deep = wrapped(20_000, value);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(jsonText(deep)).toBe(`${'{"a":'.repeat(20_000)}${JSON.stringify(value)}${"}".repeat(20_000)}`);
  });

  it("indents as JSON.stringify does for 100 levels and writes the levels past them on one line", () => {
    const text = jsonText([value, wrapped(150, "bottom")], 2);
    const oneLine = JSON.stringify(wrapped(51, "bottom")).replaceAll('{"a":', '{"a": ');
    expect(text).toBe(JSON.stringify([value, wrapped(99, "§")], null, 2).replace('"§"', oneLine));
  });

  // JSON.stringify throws a RangeError at this depth on Node 22 and 24 (Node 26's writes it).
  it("writes values 20,000 levels deep, on one line past 100 levels", () => {
    const deep = deepValue(20_000, "object");
    const text = jsonText(deep, 2);
    expect(text.split("\n")).toHaveLength(2 * 100 + 1);
    expect(jsonText(JSON.parse(text))).toBe(`${'{"a":'.repeat(20_000)}"bottom"${"}".repeat(20_000)}`);
  });
});
