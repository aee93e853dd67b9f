import { describe, expect, it } from "vitest";
import { consistentObservations } from "../../src/infer/consistency.js";
import { fieldStats } from "../../src/infer/field-stats.js";
import { inferSchema } from "../../src/infer/infer-schema.js";
import { isRecord } from "../../src/infer/records.js";

/** `count` keys named like environment variables, each with a string value. */
function environment(count: number): Record<string, string> {
  return Object.fromEntries(Array.from({ length: count }, (_, index) => [`VAR_${index}`, `/usr/${index}`]));
}

describe("records in inferred schemas", () => {
  it("types an object of twenty keys of one type as a record from one sample, and one of nineteen as an object", async () => {
    expect(await inferSchema([environment(20)])).toEqual({ type: "object", additionalProperties: { type: "string" } });
    const nineteen = await inferSchema([environment(19)]);
    expect([Object.keys(nineteen.properties as object).length, (nineteen.required as string[]).length]).toEqual([19, 19]);
  });

  it("types an object whose keys vary between samples as a record, below and inside other objects and arrays", async () => {
    const quotes = [{ prices: { AAPL: 1.5, MSFT: 2 } }, { prices: { GOOG: 3, IBM: 4 } }, { prices: { TSLA: 5 } }];
    expect(await inferSchema(quotes)).toEqual({
      type: "object",
      properties: { prices: { type: "object", additionalProperties: { type: "number" } } },
      required: ["prices"],
    });
    const byDay = [
      [{ "2024-01-01": { n: 1 } }, { "2024-01-02": { n: 2, note: "x" } }],
      [{ "2024-01-03": { n: 3 } }, { "2024-01-04": { n: 4 } }],
    ];
    expect(await inferSchema(byDay)).toEqual({
      type: "array",
      items: {
        type: "object",
        additionalProperties: { type: "object", properties: { n: { type: "integer" }, note: { type: "string" } }, required: ["n"] },
      },
    });
  });

  it("keeps an object with a few optional fields, and one whose values differ in type, an object", async () => {
    const people = [
      { id: "1", name: "Ada", email: "a@x" },
      { id: "2", name: "Bo" },
      { id: "3", name: "Cy", phone: "555" },
      { id: "4", name: "Di", email: "d@x", phone: "556" },
    ];
    expect(await inferSchema(people)).toEqual({
      type: "object",
      properties: { id: { type: "string" }, name: { type: "string" }, email: { type: "string" }, phone: { type: "string" } },
      required: ["id", "name"],
    });
    expect(isRecord([{ a: 1 }, { b: "x" }, { c: true }, { d: 2 }])).toBe(false);
    // Three distinct keys are too few to tell a record from an object with optional fields.
    expect(isRecord([{ AAPL: 1 }, { MSFT: 2 }, { GOOG: 3 }])).toBe(false);
    expect(isRecord([{ AAPL: 1 }, { MSFT: 2 }, { GOOG: 3 }, { IBM: null, TSLA: 4.5 }])).toBe(true);
    // Events of four kinds share their tag: a union's members, not a record, however little else they share.
    const events = [
      { type: "click", target: "a" },
      { type: "view", page: "b" },
      { type: "buy", sku: "c" },
      { type: "leave", reason: "d" },
    ];
    expect(isRecord(events)).toBe(false);
    expect(((await inferSchema([{ events }])).properties as { events: { items: { required: string[] } } }).events.items.required).toEqual([
      "type",
    ]);
  });

  it("keeps field statistics and consistency working on records: every value is the field `*`", async () => {
    const settings = (odd: unknown) =>
      Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`key${index}`, { v: index === 0 ? odd : `s${index}` }]));
    const values = [{ settings: settings("s0") }, { settings: settings(7) }];
    const schema = await inferSchema(values);
    expect(schema).toEqual({
      type: "object",
      properties: {
        settings: {
          type: "object",
          additionalProperties: {
            type: "object",
            properties: { v: { anyOf: [{ type: "integer" }, { type: "string" }] } },
            required: ["v"],
          },
        },
      },
      required: ["settings"],
    });
    expect(fieldStats(schema, values)).toEqual([
      { path: "", types: { object: 2 } },
      { path: "/settings", presence: 1, types: { object: 2 } },
      { path: "/settings/*", types: { object: 40 } },
      { path: "/settings/*/v", presence: 1, types: { integer: 1, string: 39 } },
    ]);
    expect(consistentObservations(values)).toBe(1);
  });
});
