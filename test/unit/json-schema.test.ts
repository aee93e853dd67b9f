import { describe, expect, it } from "vitest";
import { findDrift } from "../../src/infer/drift.js";
import { isDraft07OrOlder, isKnownDialect } from "../../src/json-schema/dialect.js";
import { describeErrors } from "../../src/json-schema/error-text.js";
import { childrenOf, itemSchema, mapChildren, type Schema, shapeOf } from "../../src/json-schema/keywords.js";
import { escapePointer, joinPointer, pointerKeys, resolvePointer, unescapePointer } from "../../src/json-schema/pointer.js";
import { describesObject, isBareNull, isNullTyped, typeIncludes } from "../../src/json-schema/predicates.js";
import { followRefs, resolveRef } from "../../src/json-schema/refs.js";
import { mapSchemas, walkSchemas } from "../../src/json-schema/traverse.js";
import { compileSchema } from "../../src/json-schema/validator.js";
import { RestoreError, restoreArguments } from "../../src/normalize/restore.js";

describe("the subschema keyword table", () => {
  it.each([
    ["additionalProperties", { type: "string" }, "schema"],
    ["additionalItems", false, "schema"],
    ["items", { type: "string" }, "schema"],
    ["items", [{ type: "string" }], "array"],
    ["contains", {}, "schema"],
    ["propertyNames", { pattern: "^a" }, "schema"],
    ["not", {}, "schema"],
    ["if", {}, "schema"],
    ["then", {}, "schema"],
    ["else", {}, "schema"],
    ["unevaluatedItems", false, "schema"],
    ["unevaluatedProperties", false, "schema"],
    ["contentSchema", {}, "schema"],
    ["allOf", [{}], "array"],
    ["anyOf", [{}], "array"],
    ["oneOf", [{}], "array"],
    ["prefixItems", [{}], "array"],
    ["properties", { a: {} }, "map"],
    ["patternProperties", { "^a": {} }, "map"],
    ["$defs", { A: {} }, "map"],
    ["definitions", { A: {} }, "map"],
    ["dependentSchemas", { a: {} }, "map"],
    ["dependencies", { a: ["b"], c: {} }, "map"],
    ["anyOf", { type: "string" }, undefined],
    ["properties", [{}], undefined],
    ["const", { type: "string" }, undefined],
    ["enum", [{ type: "string" }], undefined],
    ["default", { type: "string" }, undefined],
    ["examples", [{ type: "string" }], undefined],
    ["example", { type: "string" }, undefined],
    ["dependentRequired", { a: ["b"] }, undefined],
    ["required", ["a"], undefined],
    ["x-ui", { type: "string" }, undefined],
  ])("%s: %j → %s", (keyword, value, shape) => {
    expect(shapeOf(keyword, value)).toBe(shape);
  });

  it("lists the subschemas below a node, with their paths: schemas only, not names, data or unknown keywords", () => {
    const node: Schema = {
      type: "object",
      properties: { "a/b": { type: "string" }, enum: { type: "integer" } },
      dependencies: { a: ["b"], c: { required: ["d"] }, e: true },
      items: [{ type: "string" }, false],
      additionalItems: { type: "number" },
      const: { type: "string" },
      "x-ui": { type: "string" },
      not: 5,
    };
    expect(childrenOf(node).map(({ keyword, path, schema }) => [keyword, path, schema])).toEqual([
      ["properties", ["properties", "a/b"], { type: "string" }],
      ["properties", ["properties", "enum"], { type: "integer" }],
      ["dependencies", ["dependencies", "c"], { required: ["d"] }],
      ["dependencies", ["dependencies", "e"], true],
      ["items", ["items", "0"], { type: "string" }],
      ["items", ["items", "1"], false],
      ["additionalItems", ["additionalItems"], { type: "number" }],
    ]);
  });

  it("replaces the subschemas below a node and keeps everything else, without mutating it", () => {
    const node: Schema = {
      dependencies: { a: ["b"], c: { type: "string" } },
      enum: [{ type: "string" }],
      anyOf: [{ type: "string" }, true],
      contentSchema: { type: "string" },
    };
    const copy = structuredClone(node);
    expect(mapChildren(node, ({ schema }) => (typeof schema === "boolean" ? schema : { ...schema, seen: true }))).toEqual({
      dependencies: { a: ["b"], c: { type: "string", seen: true } },
      enum: [{ type: "string" }],
      anyOf: [{ type: "string", seen: true }, true],
      contentSchema: { type: "string", seen: true },
    });
    expect(node).toEqual(copy);
  });
});

describe("JSON pointers", () => {
  it.each([
    ["plain", "a", "a"],
    ["tilde", "a~b", "a~0b"],
    ["slash", "a/b", "a~1b"],
    ["both, tilde first", "~/", "~0~1"],
    ["both, slash first", "/~", "~1~0"],
    ["a literal ~1", "~1", "~01"],
    ["empty key", "", ""],
    ["unicode", "Größe/✓", "Größe~1✓"],
  ])("%s: %j escapes to %j and resolves back", (_label, key, escaped) => {
    expect(escapePointer(key)).toBe(escaped);
    expect(joinPointer("/properties", [key])).toBe(`/properties/${escaped}`);
    expect(resolvePointer({ properties: { [key]: 1 } }, `/properties/${escaped}`)).toBe(1);
    expect(unescapePointer(escaped)).toBe(key);
    expect(pointerKeys(`/properties/${escaped}`)).toEqual(["properties", key]);
  });

  it("reads the root pointer as no keys", () => {
    expect(pointerKeys("")).toEqual([]);
  });
});

describe("walkSchemas", () => {
  it("visits every object subschema, parent first, with escaped pointers, keywords and resources", () => {
    const nested = { $id: "https://example.com/inner", type: "object", properties: { x: { type: "string" } } };
    const schema: Schema = {
      type: "object",
      properties: { "a/b": { type: "string" }, "t~": { anyOf: [{ type: "null" }, { type: "integer" }] }, inner: nested },
      dependentSchemas: { type: { required: ["enum"] } },
      default: { type: "string" },
    };
    const visits = [...walkSchemas(schema)];
    expect(
      visits.map((visit) => [visit.pointer, visit.keyword, visit.parent?.pointer, visit.resource === nested ? "inner" : "root"]),
    ).toEqual([
      ["", undefined, undefined, "root"],
      ["/properties/a~1b", "properties", "", "root"],
      ["/properties/t~0", "properties", "", "root"],
      ["/properties/t~0/anyOf/0", "anyOf", "/properties/t~0", "root"],
      ["/properties/t~0/anyOf/1", "anyOf", "/properties/t~0", "root"],
      ["/properties/inner", "properties", "", "inner"],
      ["/properties/inner/properties/x", "properties", "/properties/inner", "inner"],
      ["/dependentSchemas/type", "dependentSchemas", "", "root"],
    ]);
  });

  it("walks nesting far deeper than the call stack allows", () => {
    let schema: Schema = { type: "string" };
    for (let depth = 0; depth < 100_000; depth++) schema = { items: schema };
    let count = 0;
    for (const _visit of walkSchemas(schema)) count++;
    expect(count).toBe(100_001);
  });
});

describe("mapSchemas", () => {
  it("rebuilds bottom-up through every subschema position, with escaped pointers, and leaves its input alone", () => {
    const schema: Schema = {
      properties: { "a/b": { type: "string" } },
      dependentSchemas: { c: { type: "object" } },
      dependencies: { d: ["e"], f: { type: "object" } },
      contentSchema: { type: "object" },
      items: [{ type: "number" }],
      enum: [{ type: "string" }],
    };
    const copy = structuredClone(schema);
    const pointers: string[] = [];
    const out = mapSchemas(schema, (node, pointer) => {
      pointers.push(pointer);
      return { ...node, at: pointer };
    });
    expect(pointers).toEqual(["/properties/a~1b", "/dependentSchemas/c", "/dependencies/f", "/contentSchema", "/items/0", ""]);
    expect(out).toEqual({
      properties: { "a/b": { type: "string", at: "/properties/a~1b" } },
      dependentSchemas: { c: { type: "object", at: "/dependentSchemas/c" } },
      dependencies: { d: ["e"], f: { type: "object", at: "/dependencies/f" } },
      contentSchema: { type: "object", at: "/contentSchema" },
      items: [{ type: "number", at: "/items/0" }],
      enum: [{ type: "string" }],
      at: "",
    });
    expect(schema).toEqual(copy);
  });
});

describe("resolveRef", () => {
  const inner = { $id: "https://example.com/inner", $defs: { Leaf: { type: "boolean" } } };
  const resource: Schema = {
    $defs: {
      "a/b": { type: "string" },
      "c~d": { type: "integer" },
      "e f": { type: "number" },
      Named: { $anchor: "named", type: "object" },
      Dynamic: { $dynamicAnchor: "dyn", type: "array" },
      Legacy: { $id: "#legacy", type: "null" },
      Inner: inner,
    },
    properties: { p: { type: "string" } },
    default: { $anchor: "inData" },
    "x-ui": { $anchor: "inUnknown" },
  };
  it.each([
    ["the root", "#", { kind: "found", node: resource, pointer: "" }],
    ["a pointer", "#/properties/p", { kind: "found", node: { type: "string" }, pointer: "/properties/p" }],
    ["an escaped slash", "#/$defs/a~1b", { kind: "found", node: { type: "string" }, pointer: "/$defs/a~1b" }],
    ["an escaped tilde", "#/$defs/c~0d", { kind: "found", node: { type: "integer" }, pointer: "/$defs/c~0d" }],
    ["percent-encoding", "#/%24defs/e%20f", { kind: "found", node: { type: "number" }, pointer: "/$defs/e f" }],
    ["a percent-encoded escape", "#/$defs/a%7E1b", { kind: "found", node: { type: "string" }, pointer: "/$defs/a~1b" }],
    ["an $anchor", "#named", { kind: "found", node: { $anchor: "named", type: "object" }, pointer: "/$defs/Named" }],
    ["a $dynamicAnchor", "#dyn", { kind: "found", node: { $dynamicAnchor: "dyn", type: "array" }, pointer: "/$defs/Dynamic" }],
    ["a fragment $id", "#legacy", { kind: "found", node: { $id: "#legacy", type: "null" }, pointer: "/$defs/Legacy" }],
    [
      "a pointer into a nested resource",
      "#/$defs/Inner/$defs/Leaf",
      { kind: "found", node: { type: "boolean" }, pointer: "/$defs/Inner/$defs/Leaf" },
    ],
    ["a dangling pointer", "#/$defs/Nope", { kind: "dangling" }],
    ["an unknown anchor", "#nope", { kind: "dangling" }],
    ["an anchor inside data", "#inData", { kind: "dangling" }],
    ["an anchor inside an unknown keyword", "#inUnknown", { kind: "dangling" }],
    ["a remote reference", "https://example.com/other.json#/a", { kind: "remote" }],
    ["a relative reference", "other.json", { kind: "remote" }],
    ["bad percent-encoding", "#/$defs/%E0%A4%A", { kind: "malformed" }],
  ])("%s: %s", (_label, ref, want) => {
    expect(resolveRef(resource, ref)).toEqual(want);
  });

  it("resolves against a nested resource, with pointers relative to it", () => {
    expect(resolveRef(inner, "#/$defs/Leaf")).toEqual({ kind: "found", node: { type: "boolean" }, pointer: "/$defs/Leaf" });
    expect(resolveRef(inner, "#/properties/p")).toEqual({ kind: "dangling" });
  });
});

describe("followRefs", () => {
  const resource: Schema = {
    $defs: { A: { $ref: "#/$defs/B" }, B: { type: "string", format: "date-time" }, Loop: { $ref: "#/$defs/Loop" } },
    properties: { a: { $ref: "#/$defs/A" } },
  };
  it.each([
    ["no $ref", { type: "integer" }, { type: "integer" }],
    ["a chain of refs", { $ref: "#/$defs/A" }, { type: "string", format: "date-time" }],
    ["a dangling ref", { $ref: "#/$defs/Nope" }, undefined],
    ["a remote ref", { $ref: "https://example.com/s.json" }, undefined],
    ["a loop of bare refs", { $ref: "#/$defs/Loop" }, undefined],
    ["not a schema", 5, 5],
  ])("%s", (_label, schema, want) => {
    expect(followRefs(resource, schema)).toEqual(want);
  });
});

describe("itemSchema", () => {
  const string = { type: "string" };
  const number = { type: "number" };
  const date = { type: "string", format: "date-time" };
  it.each([
    ["items", { items: date }, [date, date]],
    ["prefixItems, then items", { prefixItems: [string], items: date }, [string, date]],
    ["prefixItems, nothing after", { prefixItems: [string] }, [string, undefined]],
    ["draft-07 items: [...], then additionalItems", { items: [number], additionalItems: date }, [number, date]],
    ["draft-07 items: [...], nothing after", { items: [number] }, [number, undefined]],
  ])("%s", (_label, schema, want) => {
    expect([itemSchema(schema, 0), itemSchema(schema, 1)]).toEqual(want);
  });
});

describe("schema predicates: two meanings of object, two of null", () => {
  it.each([
    [{ type: "object" }, true, true],
    [{ type: ["object", "null"] }, true, false],
    [{ properties: { a: {} } }, false, true],
    [{ required: ["a"] }, false, true],
    [{ type: "string", properties: { a: {} } }, false, false],
    [{}, false, false],
  ])("%j: type includes object %s, describes an object %s", (node, includes, describes) => {
    expect([typeIncludes(node, "object"), describesObject(node)]).toEqual([includes, describes]);
  });

  it.each([
    [{ type: "null" }, true, true],
    [{ type: "null", description: "none" }, true, false],
    [{ type: ["string", "null"] }, false, false],
    [null, false, false],
  ])("%j: null-typed %s, bare null %s", (member, typed, bare) => {
    expect([isNullTyped(member), isBareNull(member)]).toEqual([typed, bare]);
  });
});

describe("dialects", () => {
  it.each([
    [{ $schema: "http://json-schema.org/draft-04/schema#" }, true, true],
    [{ $schema: "http://json-schema.org/draft-07/schema" }, true, true],
    [{ $schema: "https://json-schema.org/draft/2019-09/schema" }, false, true],
    [{ $schema: "https://json-schema.org/draft/2020-12/schema#" }, false, true],
    [{ $schema: "https://example.com/my-dialect" }, false, false],
  ])("%j: draft-07 or older %s, known %s", (schema, older, known) => {
    expect([isDraft07OrOlder(schema), isKnownDialect(schema.$schema)]).toEqual([older, known]);
  });

  it("reads a schema without $schema as 2020-12", () => {
    expect([isDraft07OrOlder({ type: "object" }), isDraft07OrOlder({ $schema: 7 }), isDraft07OrOlder(true)]).toEqual([false, false, false]);
  });
});

describe("validators built from server schemas read own properties only", () => {
  // Parsed, as a server's schema is: "__proto__" is then a key, not the literal's prototype.
  const schema: unknown = JSON.parse(
    '{"type":"object","properties":{"constructor":{"type":"string"},"toString":{"type":"string"},"__proto__":{"type":"string"}},"required":["constructor"]}',
  );

  it("a name on Object.prototype is missing from {} and may be left out when optional", () => {
    const validate = compileSchema(schema);
    expect([validate({}), validate.errors?.map(({ keyword, params }) => [keyword, params])]).toEqual([
      false,
      [["required", { missingProperty: "constructor" }]],
    ]);
    expect(validate({ constructor: "c" })).toBe(true);
  });

  it("restoreArguments refuses {} and drift reports nothing for a result that leaves the optional ones out", () => {
    let error: unknown;
    try {
      restoreArguments(schema, {}, { profile: "openai" });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(RestoreError);
    expect([(error as RestoreError).code, (error as RestoreError).pointer]).toEqual(["INVALID_ARGUMENTS", "/constructor"]);
    expect(findDrift({ type: "object", properties: { toString: { type: "string" } } }, [{}, { toString: "t" }])).toEqual([]);
  });

  // Ajv leaves `__proto__` out of `properties`: its value passed unchecked, and additionalProperties: false refused it.
  it("checks an own __proto__ property against its subschema, nested and beside patternProperties", () => {
    const validate = compileSchema(
      JSON.parse(
        '{"type":"object","additionalProperties":false,"properties":{"__proto__":{"type":"integer"},"inner":{"type":"object","properties":{"__proto__":{"enum":["a"]}},"patternProperties":{"^__":{"maxLength":1}}}}}',
      ),
    );
    const verdicts = [
      '{"__proto__": 3}',
      '{"__proto__": "; rm -rf ~"}',
      '{"inner": {"__proto__": "a"}}',
      '{"inner": {"__proto__": "b"}}',
      '{"inner": {"__x": "ab"}}',
    ].map((text) => [validate(JSON.parse(text)), validate.errors?.map(({ instancePath, keyword }) => `${instancePath} ${keyword}`) ?? []]);
    expect(verdicts).toEqual([
      [true, []],
      [false, ["/__proto__ type"]],
      [true, []],
      [false, ["/inner/__proto__ enum"]],
      [false, ["/inner/__x maxLength"]],
    ]);
  });
});

describe("describeErrors", () => {
  it("reads only the errors it shows: a million of them cost what a few do", () => {
    let read = 0;
    const errors = Array.from({ length: 1_000_000 }, (_, index) => ({
      get instancePath() {
        read++;
        return `/xs/${index % 2_000}`;
      },
      schemaPath: "#/items/type",
      keyword: "type",
      params: { type: "integer" },
      message: "must be integer",
    }));
    expect(describeErrors(errors)).toBe("xs[0]: must be integer; xs[1]: must be integer; xs[2]: must be integer");
    expect(read).toBe(3);
  });
});
