import { describe, expect, it } from "vitest";
import { jsonText } from "../src/bundle/serialize.js";
import { lintSchema } from "../src/lint/lint.js";
import { deepValue } from "./helpers/deep-schemas.js";

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
  it("writes what JSON.stringify writes, at 0 and 2 spaces", () => {
    const value = {
      a: [1, "two", null, true, [], {}, [[{}]], undefined],
      'key with "quotes"\u2028': { nested: { deeper: [-0.5, 1e21, "é"] }, skipped: undefined },
      empty: "",
    };
    expect(jsonText(value)).toBe(JSON.stringify(value));
    expect(jsonText(value, 2)).toBe(JSON.stringify(value, null, 2));
  });

  it("writes values deeper than JSON.stringify can, on one line past 100 levels", () => {
    const value = deepValue(20_000, "object");
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    const text = jsonText(value, 2);
    expect(text.split("\n")).toHaveLength(2 * 100 + 1);
    expect(jsonText(JSON.parse(text))).toBe(`${'{"a":'.repeat(20_000)}"bottom"${"}".repeat(20_000)}`);
  });
});
