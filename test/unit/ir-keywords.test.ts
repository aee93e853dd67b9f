import { describe, expect, it } from "vitest";
import { emitParser } from "../../src/codegen/emit-parser.js";
import { emitType } from "../../src/codegen/emit-type.js";
import { IRBuilder } from "../../src/ir/json-schema-to-ir.js";
import { NameScope } from "../../src/ir/naming.js";

function build(schema: unknown) {
  const builder = new IRBuilder(new NameScope([]));
  const node = builder.build(schema, "tool", "/outputSchema");
  return { node, warnings: builder.warnings.map(({ pointer, message }) => [pointer, message]) };
}

describe("keywords the IR checks at run time", () => {
  it("a zod 4 record is a string map of its values, with no key check", () => {
    const { node, warnings } = build({ type: "object", propertyNames: { type: "string" }, additionalProperties: { type: "number" } });
    expect(node).toEqual({ kind: "object", properties: [], additional: { kind: "number", integer: false } });
    expect(emitType(node).code).toBe("{ [key: string]: number }");
    expect(emitParser(node, { strictObjects: true }).code).toBe("z.record(z.string(), z.number())");
    expect(warnings).toEqual([]);
  });

  it("a constrained key schema is a check beside the record", () => {
    const { node } = build({ type: "object", propertyNames: { pattern: "^[a-z]+$" }, additionalProperties: { type: "string" } });
    expect(emitType(node).code).toBe("{ [key: string]: string }");
    expect(emitParser(node, { strictObjects: true }).code).toBe(
      'z.record(z.string(), z.string()).refine(parsers.propertyNames(z.string().refine(parsers.matches("^[a-z]+$"), "must match pattern ^[a-z]+$")), "a key does not match propertyNames")',
    );
  });

  it("unknown keywords beside properties are ignored, as Ajv does: the object stays, without a warning", () => {
    const { node, warnings } = build({
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
      "x-unknown": 1,
      foo: 1,
    });
    expect(emitType(node).code).toBe("{\n  name: string;\n}");
    expect(warnings).toEqual([]);
  });

  it("$recursiveRef widens only itself, with a warning naming its pointer", () => {
    const { node, warnings } = build({ type: "object", properties: { a: { $recursiveRef: "#", minLength: 2 }, b: { type: "integer" } } });
    expect(emitType(node).code).toBe(
      "{\n  a?: string | number | boolean | null | Array<rt.JsonValue> | { [key: string]: unknown };\n  b?: number;\n}",
    );
    expect(warnings).toEqual([["/outputSchema/properties/a/$recursiveRef", '"$recursiveRef" cannot be checked; it is ignored (wider)']]);
  });

  it("patternProperties type the index signature; additionalProperties covers only keys no pattern matches", () => {
    const { node } = build({
      type: "object",
      properties: { id: { type: "string" } },
      patternProperties: { "^n_": { type: "number" } },
      additionalProperties: false,
    });
    expect(emitType(node).code).toBe("{\n  id?: string;\n} & { [key: string]: number | string }");
    expect(emitParser(node, { strictObjects: true }).code).toContain(
      'parsers.otherKeysMatch(["id"], [[parsers.pattern("^n_"), z.number()]] as const, false)',
    );
    // Lenient parsers keep keys that additionalProperties: false forbids.
    expect(emitParser(node, { strictObjects: false }).code).toContain(
      'parsers.otherKeysMatch(["id"], [[parsers.pattern("^n_"), z.number()]] as const, true)',
    );
  });

  it("unevaluatedProperties asks the anyOf branches that validate what they evaluated", () => {
    const { node } = build({
      type: "object",
      anyOf: [{ properties: { x: { type: "number" } }, required: ["x"] }],
      unevaluatedProperties: false,
    });
    expect(node.kind).toBe("intersection");
    const check = node.kind === "intersection" ? node.members.find((member) => member.kind === "check") : undefined;
    expect(check).toMatchObject({
      check: {
        kind: "unevaluatedProperties",
        node: { kind: "never" },
        evaluated: { properties: [], branches: [{ when: { kind: "valid" }, evaluated: { properties: ["x"], branches: [] } }] },
      },
    });
    // Lenient parsers do not reject unknown keys, here as for additionalProperties: false.
    expect(emitParser(node, { strictObjects: false }).code).not.toContain("unevaluatedProperties");
  });

  it("a $ref the IR cannot follow counts as evaluating everything: widened, with its warning, never narrower", () => {
    const { node, warnings } = build({ type: "object", $ref: "https://example.com/base.json", unevaluatedProperties: false });
    const check = node.kind === "intersection" ? node.members.find((member) => member.kind === "check") : undefined;
    expect(check).toMatchObject({ check: { kind: "unevaluatedProperties", evaluated: { allProperties: true, allItems: true } } });
    expect(warnings).toEqual([
      ["/outputSchema/$ref", '$ref "https://example.com/base.json" points outside the schema and is not fetched; typed as unknown'],
    ]);
  });

  it("draft-07 ignores the 2019-09 keywords, as Ajv's draft-07 class does, but reads dependencies", () => {
    const { node } = build({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      dependentRequired: { a: ["b"] },
      dependencies: { c: ["d"] },
      unevaluatedProperties: false,
    });
    const checks = node.kind === "intersection" ? node.members.map((member) => (member.kind === "check" ? member.check : member.kind)) : [];
    expect(checks).toEqual(["object", { kind: "dependentRequired", key: "c", required: ["d"] }]);
  });
});
