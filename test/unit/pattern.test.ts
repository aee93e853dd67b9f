import { describe, expect, it } from "vitest";
import { pattern, UnsupportedPatternError } from "../../packages/runtime/src/pattern.js";
import { IRBuilder } from "../../src/ir/json-schema-to-ir.js";
import { NameScope } from "../../src/ir/naming.js";
import { validatorFor } from "../../src/json-schema/validator.js";

/** Texts where ECMAScript and RE2 read a pattern differently unless it is translated. */
const TEXTS = [
  "",
  "a",
  "ab",
  "a-b.c",
  "a b",
  " ",
  "\u00a0",
  "\u2028",
  "\n",
  "\r",
  "\t",
  "\v",
  "\ufeff",
  "é",
  "α",
  "😀",
  "x😀y",
  "A1_",
  "/",
  "{}",
  "[]",
  "\u0007",
  "\b",
];

const PATTERNS = [
  "^.$",
  "^.+$",
  "\\s",
  "^\\S+$",
  "^[\\s\\d]+$",
  "^[^\\s]+$",
  "^[^\\S]$",
  "[^]",
  "^[]$",
  "^\\u00e9$",
  "^\\u{1F600}$",
  "^\\uD83D\\uDE00$",
  "^\\p{L}+$",
  "^\\P{L}$",
  "^\\p{Script=Greek}$",
  "^\\p{sc=Greek}$",
  "^(?<first>a)(?:b)?$",
  "^[\\w-]+$",
  "^[a\\-z]$",
  "^\\cG$",
  "^\\x41?\\0?$",
  "a{2,}",
  "^a{1,2}b?$",
  "\\/",
  "\\{\\}",
  "^\\[\\]$",
  "\\bb",
  "\\Ba",
  "^[\\b]$",
  "x|😀",
  "^[😀-😂]$",
];

describe("schema patterns, matched in linear time", () => {
  it("match what RegExp with the u flag matches, on the texts where the two syntaxes differ", () => {
    const differences = PATTERNS.flatMap((source) => {
      const expected = new RegExp(source, "u");
      const linear = pattern(source);
      return TEXTS.filter((text) => linear.test(text) !== expected.test(text)).map((text) => [source, text]);
    });
    expect(differences).toEqual([]);
  });

  it("answer at once where RegExp backtracks for ever: ^(a+)+$ against 10,000 characters", () => {
    expect(pattern("^(a+)+$").test(`${"a".repeat(10_000)}!`)).toBe(false);
    expect(pattern("^(\\w+\\s?)*$").test(`${"word ".repeat(2_000)}!`)).toBe(false);
    expect(pattern("^(a|aa)+$").test("a".repeat(10_000))).toBe(true);
  });

  it("refuses what linear matching cannot take, naming it, and what is not a regular expression", () => {
    const reasons = ["(?=a)", "(?<!a)b", "(a)\\1", "(?<n>a)\\k<n>", "a{1001}", "("].map((source) => {
      try {
        pattern(source);
        return "taken";
      } catch (error) {
        expect(error).toBeInstanceOf(UnsupportedPatternError);
        return (error as UnsupportedPatternError).reason.split(":")[0];
      }
    });
    expect(reasons).toEqual([
      "a lookaround",
      "a lookaround",
      "a backreference",
      "a backreference",
      "error parsing regexp",
      "Invalid regular expression",
    ]);
  });

  it("reads a pattern valid only without the u flag as RegExp reads it then", () => {
    const plain = pattern("^[\\w-.]+$", false);
    expect(["a-b.c", "a b", "é"].map((text) => plain.test(text))).toEqual([true, false, false]);
    expect(() => pattern("^[\\w-.]+$")).toThrow(UnsupportedPatternError);
  });

  it("a pattern that cannot be matched in linear time is left unchecked, with a warning, by the generator and by validation", () => {
    const schema = { type: "object", properties: { tags: { type: "string", pattern: "^(?!x)(a)\\1$" }, n: { type: "integer" } } };
    const builder = new IRBuilder(new NameScope([]));
    builder.build(schema, "tool", "/outputSchema");
    expect(builder.warnings.map(({ pointer, message }) => [pointer, message])).toEqual([
      ["/outputSchema/properties/tags/pattern", "pattern cannot be matched in linear time: a lookaround; not checked"],
    ]);
    const { validate, unchecked } = validatorFor(schema);
    expect(unchecked).toEqual([
      '/properties/tags/pattern: "^(?!x)(a)\\\\1$" is not a regular expression that can be matched in linear time with the u flag; not checked',
    ]);
    expect([validate({ tags: "anything" }), validate({ n: "x" })]).toEqual([true, false]);
  });
});
