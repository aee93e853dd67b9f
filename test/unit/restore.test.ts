import { describe, expect, it } from "vitest";
import type { Tool } from "../../src/bundle/types.js";
import { compileSchema, validatorFor } from "../../src/json-schema/validator.js";
import { RestoreError, restoreArguments } from "../../src/normalize/restore.js";
import { readCorpus } from "../helpers/corpus.js";

const restoreError = (run: () => unknown): RestoreError => {
  try {
    run();
  } catch (error) {
    if (error instanceof RestoreError) return error;
    throw error;
  }
  throw new Error("no RestoreError");
};

describe("restoreArguments", () => {
  it("openai-strict: the model-style nulls of three real servers are dropped, and the originals accept the result", async () => {
    const corpus = await readCorpus();
    const tool = (server: string, name: string) =>
      corpus.servers.find((entry) => entry.id === server)?.tools.find((candidate) => candidate.name === name) as Tool;
    const cases: [Tool, Record<string, unknown>, Record<string, unknown>][] = [
      [tool("filesystem", "read_text_file"), { path: "/a.txt", tail: null, head: null }, { path: "/a.txt" }],
      [tool("everything", "get-resource-links"), { count: null }, {}],
      [
        tool("sequential-thinking", "sequentialthinking"),
        {
          thought: "t",
          nextThoughtNeeded: true,
          thoughtNumber: 1,
          totalThoughts: 2,
          isRevision: null,
          revisesThought: null,
          branchFromThought: null,
          branchId: null,
          needsMoreThoughts: null,
        },
        { thought: "t", nextThoughtNeeded: true, thoughtNumber: 1, totalThoughts: 2 },
      ],
    ];
    for (const [{ inputSchema }, sent, want] of cases) {
      const restored = restoreArguments(inputSchema, sent, { profile: "openai-strict" });
      expect(restored).toEqual(want);
      expect(compileSchema(inputSchema)(restored)).toBe(true);
    }
  });

  const schema = {
    type: "object",
    properties: {
      path: { type: "string" },
      note: { type: ["string", "null"] },
      count: { type: "number" },
      level: { type: "integer", enum: [1, 2, 3] },
      labels: { type: "object", additionalProperties: { type: "string" } },
    },
    required: ["path"],
  };

  it("keeps a null the original allows, and refuses one on a required property, naming its pointer", () => {
    expect(
      restoreArguments(schema, { path: "a", note: null, count: null, level: null, labels: null }, { profile: "openai-strict" }),
    ).toEqual({
      path: "a",
      note: null,
    });
    const error = restoreError(() => restoreArguments(schema, { path: null }, { profile: "openai-strict" }));
    expect([error.code, error.pointer, error.message]).toEqual([
      "INVALID_ARGUMENTS",
      "/path",
      "the arguments do not match the tool's input schema at /path: path: must be string. Correct them and call again.",
    ]);
  });

  it("gemini: a string becomes the enum's number only where the original's enum holds it; a number as a string elsewhere is refused", () => {
    expect(restoreArguments(schema, { path: "a", level: "3" }, { profile: "gemini" })).toEqual({ path: "a", level: 3 });
    expect(restoreError(() => restoreArguments(schema, { path: "a", count: "3" }, { profile: "gemini" })).pointer).toBe("/count");
    // Under a profile that sent enums as they are, "3" is the model's mistake, not an encoding.
    expect(restoreError(() => restoreArguments(schema, { path: "a", level: "3" }, { profile: "openai" })).pointer).toBe("/level");
  });

  it("parses JSON text only where the encoding put it, and says where it is not JSON", () => {
    expect(restoreArguments(schema, { path: '{"a":1}', labels: '{"__proto__":"x","k":"v"}' }, { profile: "gemini" })).toEqual({
      path: '{"a":1}',
      labels: JSON.parse('{"__proto__":"x","k":"v"}'),
    });
    const restored = restoreArguments(schema, { path: "a", labels: '{"__proto__":"x"}' }, { profile: "portable" }) as {
      labels: object;
    };
    expect(Object.getPrototypeOf(restored.labels)).toBe(Object.prototype);
    expect(Object.hasOwn(restored.labels, "__proto__")).toBe(true);
    const error = restoreError(() => restoreArguments(schema, { path: "a", labels: "{k: v}" }, { profile: "openai-strict" }));
    expect([error.code, error.pointer]).toEqual(["INVALID_JSON_TEXT", "/labels"]);
  });

  it("takes text that is not JSON as the string it can only mean, where the original takes a string there", () => {
    const union = {
      type: "object",
      properties: {
        query: { anyOf: [{ type: "string" }, { type: "object", properties: { q: { type: "string" } } }] },
        free: {},
        labels: { type: "object", additionalProperties: { type: "string" } },
      },
    };
    for (const profile of ["gemini", "portable", "openai-strict"] as const) {
      // Unquoted, as models send a plain string; quoted, and an object, as JSON text.
      const sent = { query: "shoes size 42", free: "plain words", labels: '{"k":"v"}' };
      expect(restoreArguments(union, sent, { profile }), profile).toEqual({
        query: "shoes size 42",
        free: "plain words",
        labels: { k: "v" },
      });
      expect(restoreArguments(union, { free: '"quoted"' }, { profile })).toEqual({ free: "quoted" });
      // Where the original takes no string, the model is told the text is not JSON.
      const error = restoreError(() => restoreArguments(union, { labels: "{k: v}" }, { profile }));
      expect([error.code, error.pointer], profile).toEqual(["INVALID_JSON_TEXT", "/labels"]);
    }
  });

  it("unwraps a root that is not an object, and says when the model did not wrap it", () => {
    const list = { type: "array", items: { type: "integer", enum: [1, 2] } };
    expect(restoreArguments(list, { value: ["1", "2"] }, { profile: "gemini" })).toEqual([1, 2]);
    expect(restoreArguments(list, { value: [1, 2] }, { profile: "anthropic" })).toEqual([1, 2]);
    const error = restoreError(() => restoreArguments(list, [1, 2], { profile: "openai" }));
    expect([error.code, error.pointer]).toEqual(["MISSING_WRAPPED_VALUE", "/value"]);
  });
});

describe("restoreArguments undoes only what the encoding did", () => {
  const schema = {
    type: "object",
    properties: {
      q: { type: "string" },
      limit: { type: "integer" },
      labels: { type: "object", additionalProperties: { type: "string" } },
      flag: { enum: [true, false] },
    },
    required: ["q"],
  };

  it("a null no profile asked for is the model's mistake, and so is a null inside JSON text", () => {
    for (const profile of ["anthropic", "gemini", "openai"] as const)
      expect(restoreError(() => restoreArguments(schema, { q: "x", limit: null }, { profile })).pointer, profile).toBe("/limit");
    expect(restoreArguments(schema, { q: "x", limit: null, labels: null, flag: null }, { profile: "openai-strict" })).toEqual({ q: "x" });
    const inside = restoreError(() =>
      restoreArguments(schema, { q: "x", labels: '{"team":null,"env":"prod"}' }, { profile: "openai-strict" }),
    );
    expect(inside.pointer).toBe("/labels/team");
    // "true" written inside JSON text is the model's own value, not an enum the encoding turned into a string.
    const flags = { type: "object", properties: { flags: { type: "object", additionalProperties: { enum: [true, false] } } } };
    expect(restoreArguments(flags, { flags: '{"a":true}' }, { profile: "gemini" })).toEqual({ flags: { a: true } });
    expect(restoreError(() => restoreArguments(flags, { flags: '{"a":"true"}' }, { profile: "gemini" })).pointer).toBe("/flags/a");
  });

  it("a schema cannot mark its own strings as JSON text", () => {
    const hostile = {
      type: "object",
      properties: { q: { $ref: "#/x-defs/s" } },
      required: ["q"],
      "x-defs": { s: { type: "string", "x-pmcp-json-text": true } },
    };
    for (const profile of ["openai", "openai-strict", "gemini", "anthropic-strict"] as const)
      expect(restoreArguments(hostile, { q: "123" }, { profile }), profile).toEqual({ q: "123" });
  });

  it("refuses a number JSON cannot carry, sent or in JSON text, at its pointer: 1e400 reads as Infinity, which would be sent as null", () => {
    const schema = {
      type: "object",
      properties: { xs: { type: "array", items: { type: "integer" } }, n: { type: "number", exclusiveMinimum: 0 }, data: {} },
      required: ["xs", "n"],
    };
    const cases: [string, string, string][] = [
      ["openai", '{"xs":[1e400],"n":1e400}', "/xs/0"],
      ["anthropic-strict", '{"xs":[1],"n":-1e400}', "/n"],
      ["gemini", '{"xs":[1],"n":1,"data":"{\\"deep\\":[0,1e999]}"}', "/data/deep/1"],
    ];
    for (const [profile, answer, pointer] of cases) {
      const error = restoreError(() => restoreArguments(schema, JSON.parse(answer), { profile: profile as "openai" }));
      expect([error.code, error.pointer, error.message], answer).toEqual([
        "NOT_FINITE",
        pointer,
        `${pointer}: ${answer.includes("-1e400") ? "-" : ""}Infinity is not a number JSON can carry; send a finite number`,
      ]);
    }
    expect(restoreArguments(schema, JSON.parse('{"xs":[1],"n":1e300}'), { profile: "openai" })).toEqual({ xs: [1], n: 1e300 });
  });

  it("checks what of a schema compiles: a pattern valid only without the u flag, a dangling $ref, enum [], a misspelt type", () => {
    const schema = {
      type: "object",
      properties: {
        id: { type: "string", pattern: "^[\\w-.]+$" },
        free: { $ref: "#/$defs/missing" },
        mode: { enum: [] },
        odd: { type: "integr" },
        n: { type: "integer" },
      },
      required: ["n"],
    };
    const refused = (args: unknown) => {
      const error = restoreError(() => restoreArguments(schema, args, { profile: "openai" }));
      return [error.code, error.pointer];
    };
    expect(refused({ n: "; rm -rf ~" })).toEqual(["INVALID_ARGUMENTS", "/n"]);
    expect(refused({ n: 1, id: "a b" })).toEqual(["INVALID_ARGUMENTS", "/id"]);
    expect(refused({ n: 1, mode: "any" })).toEqual(["INVALID_ARGUMENTS", "/mode"]);
    const args = { n: 1, id: "a-b.c_d", free: { any: ["thing"] }, odd: "x" };
    expect(restoreArguments(schema, args, { profile: "openai" })).toEqual(args);
    expect(validatorFor(schema).unchecked).toEqual([
      "/: a pattern is valid only without the u flag; the patterns are read without it",
      '/properties/free: $ref "#/$defs/missing" does not resolve; not checked',
      "/properties/mode: enum [] admits no value",
      '/properties/odd/type: "integr" is not a value of "type"; not checked',
    ]);
  });

  it("reads a pattern that needs the u flag with it, leaving out only one that is valid with neither", () => {
    const schema = {
      type: "object",
      properties: { name: { type: "string", pattern: "^\\p{L}+$" }, code: { type: "string", pattern: "^[\\w-.]+$" } },
    };
    expect(validatorFor(schema).unchecked).toEqual([
      '/properties/code/pattern: "^[\\\\w-.]+$" is not a regular expression that can be matched in linear time with the u flag; not checked',
    ]);
    expect(restoreArguments(schema, { name: "Émile", code: "a b" }, { profile: "openai" })).toEqual({ name: "Émile", code: "a b" });
    expect(restoreError(() => restoreArguments(schema, { name: "p{L}" }, { profile: "openai" })).pointer).toBe("/name");
  });

  it("refuses every call when nothing of the schema can be checked", () => {
    const schema = { $schema: "https://example.com/no-such-meta-schema", type: "object" };
    const error = restoreError(() => restoreArguments(schema, {}, { profile: "openai" }));
    expect([error.code, error.pointer]).toEqual(["UNUSABLE_SCHEMA", "/"]);
    expect(error.message).toMatch(/^the tool's input schema cannot be checked, so no arguments are sent: the schema cannot be compiled: /);
  });

  it("refuses every call for a schema nested 5,000 deep, as a RestoreError, without overflowing the stack", () => {
    let schema: Record<string, unknown> = { type: "string" };
    for (let level = 0; level < 5_000; level++) schema = { type: "object", properties: { a: schema } };
    const error = restoreError(() => restoreArguments(schema, { a: {} }, { profile: "openai" }));
    expect([error.code, error.pointer, error.message.split(" (at")[0]]).toEqual([
      "UNUSABLE_SCHEMA",
      "/",
      "the tool's input schema nests deeper than 256 levels",
    ]);
  });

  it("refuses arguments or JSON text nested deeper than 256 levels, without overflowing the stack", () => {
    const deep = `${'{"a":'.repeat(20_000)}1${"}".repeat(20_000)}`;
    const error = restoreError(() => restoreArguments({ type: "object", properties: { data: {} } }, { data: deep }, { profile: "gemini" }));
    expect([error.code, error.pointer]).toEqual(["TOO_DEEP", "/data"]);
    const nested = JSON.parse(deep);
    expect(restoreError(() => restoreArguments({ type: "object" }, nested, { profile: "openai" })).code).toBe("TOO_DEEP");
  });
});
