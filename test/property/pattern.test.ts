import fc from "fast-check";
import { describe, it } from "vitest";
import { pattern } from "../../packages/runtime/src/pattern.js";
import { runs } from "../helpers/full-run.js";

// Property-based: generated patterns and texts. The hand-picked ones are in test/unit/pattern.test.ts.
describe("schema patterns, matched in linear time", () => {
  it("match what RegExp matches for generated patterns and texts (property-based)", () => {
    const atom = fc.constantFrom(
      "a",
      "b",
      ".",
      "\\d",
      "\\s",
      "\\S",
      "\\w",
      "[ab]",
      "[^a]",
      "[a-c]",
      "(?:a|b)",
      "é",
      "😀",
      "\\u2028",
      "[\\s-]",
    );
    const quantified = fc.tuple(atom, fc.constantFrom("", "*", "+", "?", "{1,2}", "{2}", "*?")).map(([a, q]) => a + q);
    const source = fc
      .tuple(fc.boolean(), fc.array(quantified, { minLength: 1, maxLength: 5 }), fc.boolean(), fc.boolean())
      .map(([start, parts, alternative, end]) => `${start ? "^" : ""}${parts.join("")}${alternative ? "|b" : ""}${end ? "$" : ""}`);
    const text = fc.string({ unit: fc.constantFrom("a", "b", "c", "1", " ", "\n", "\u2028", "\u00a0", "é", "😀", "_", "-"), maxLength: 8 });
    fc.assert(
      fc.property(source, text, (written, input) => pattern(written).test(input) === new RegExp(written, "u").test(input)),
      { numRuns: runs(3000, 600), seed: 20261203 },
    );
  });
});
