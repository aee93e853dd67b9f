import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { ObservationRecorder, observationPath, parseObservationLog, redactValue } from "@pmcp-codegen/runtime";
import { beforeAll, describe, expect, it } from "vitest";
import { consistentObservations } from "../../src/infer/consistency.js";
import { fieldStats } from "../../src/infer/field-stats.js";
import { inferSchema } from "../../src/infer/infer-schema.js";
import { outputDir } from "../helpers/typescript.js";

let dir: string;

beforeAll(async () => {
  dir = await outputDir("observe-logs");
});

describe("observation logs", () => {
  it("read value samples (all that older logs hold) beside content samples, and reject a line that is neither", () => {
    const header = { format: "pmcp-observations/1", server: "s", tool: "t", seen: 2, firstSeen: "a", lastSeen: "b", redacted: false };
    const lines = (...samples: object[]) => [header, ...samples].map((line) => JSON.stringify(line)).join("\n");
    expect(parseObservationLog(lines({ at: "a", value: { n: 1 } }, { at: "b", content: ["text", "image"] }), "t.jsonl").samples).toEqual([
      { at: "a", value: { n: 1 } },
      { at: "b", content: ["text", "image"] },
    ]);
    expect(() => parseObservationLog(lines({ at: "a", content: [1] }), "t.jsonl")).toThrow(
      't.jsonl:2: not an observation (expected {"at": time, "value": result} or {"at": time, "content": [types]})',
    );
  });

  it("stay inside their folder whatever the server and tool are called", () => {
    const base = join(dir, "logs");
    for (const [server, tool] of [
      ["../x", "../../etc/passwd"],
      ["a/b", ".hidden"],
      ["ok", "naïve tool"],
    ] as const) {
      const path = observationPath(base, server, tool);
      expect(path.startsWith(`${base}/`)).toBe(true);
      expect(path.slice(base.length + 1).split("/")).toHaveLength(2);
      expect(path).not.toMatch(/\/\.[^/]*$|\.\./);
    }
    expect(observationPath(base, "ok", "naïve tool")).toBe(join(base, "ok", "na%C3%AFve%20tool.jsonl"));
  });

  it("of names too long for a file name (30 CJK characters) are written under a hash, and read back by their header", async () => {
    const logs = join(dir, "long-names");
    const server = "服".repeat(30);
    const tools = ["工具".repeat(15), `${"工具".repeat(15)}二`];
    const failures: Error[] = [];
    const recorder = new ObservationRecorder({ dir: logs, onError: (error) => failures.push(error) });
    for (const tool of tools) recorder.record(server, tool, { tool });
    await recorder.flush();
    expect(failures).toEqual([]);
    const [folder, ...others] = await readdir(logs);
    expect([Buffer.byteLength(folder ?? "") <= 120, others]).toEqual([true, []]);
    const files = (await readdir(join(logs, folder ?? ""))).sort();
    expect(files.map((file) => /^(%[0-9A-F]{2})+~[0-9a-f]{32}\.jsonl$/.test(file))).toEqual([true, true]);
    const headers = await Promise.all(
      files.map(async (file) => parseObservationLog(await readFile(join(logs, folder ?? "", file), "utf8"), file).header),
    );
    expect(headers.map((header) => [header.server, header.tool]).sort()).toEqual(tools.map((tool) => [server, tool]).sort());
  });

  it("keep at most maxSamples per tool, reservoir-sampled, counting everything seen across recorders", async () => {
    const logs = join(dir, "reservoir");
    const first = new ObservationRecorder({ dir: logs, maxSamples: 50 });
    for (let index = 0; index < 300; index++) first.record("s", "t", { index });
    await first.flush();
    const second = new ObservationRecorder({ dir: logs, maxSamples: 50 });
    for (let index = 300; index < 500; index++) second.record("s", "t", { index });
    await second.flush();
    const log = parseObservationLog(await readFile(observationPath(logs, "s", "t"), "utf8"), "t.jsonl");
    expect(log.header.seen).toBe(500);
    expect(log.samples).toHaveLength(50);
    const kept = log.samples.map((sample) => ("value" in sample ? (sample.value as { index: number }).index : -1));
    expect(new Set(kept).size).toBe(50);
    // A uniform sample of 500 is very unlikely to come only from the first 50 (which a plain cap would keep).
    expect(kept.some((index) => index >= 50)).toBe(true);
    expect(log.header.firstSeen <= log.header.lastSeen).toBe(true);
  });

  it("with redact keep structure only: strings as length classes, numbers as their kind", async () => {
    expect(redactValue({ name: "Ada Lovelace", id: 7, score: 0.93, ok: true, tags: ["", "x".repeat(300)], none: null })).toEqual({
      name: "<string 1-16>",
      id: 0,
      score: 0.5,
      ok: false,
      tags: ["<string empty>", "<string 257+>"],
      none: null,
    });
    const logs = join(dir, "redacted");
    const recorder = new ObservationRecorder({ dir: logs, redact: true });
    recorder.record("s", "secret", { ssn: "123-45-6789", balance: 1234.56 });
    await recorder.flush();
    const text = await readFile(observationPath(logs, "s", "secret"), "utf8");
    expect(text).not.toContain("123-45-6789");
    expect(text).not.toContain("1234.56");
    expect(parseObservationLog(text, "secret.jsonl").header.redacted).toBe(true);
  });

  it("redact the samples a plain log already kept when reopened with redact, and copy values when recorded", async () => {
    const logs = join(dir, "redact-later");
    const plain = new ObservationRecorder({ dir: logs });
    const value = { email: "alice@example.com" };
    plain.record("s", "t", value);
    value.email = "changed after the call";
    await plain.flush();
    expect(await readFile(observationPath(logs, "s", "t"), "utf8")).toContain("alice@example.com");
    const redacting = new ObservationRecorder({ dir: logs, redact: true });
    redacting.record("s", "t", { email: "bob@example.com" });
    await redacting.flush();
    const text = await readFile(observationPath(logs, "s", "t"), "utf8");
    expect(text).not.toMatch(/alice|bob|changed/);
    expect(parseObservationLog(text, "t.jsonl")).toMatchObject({
      header: { seen: 2, redacted: true },
      samples: [{ value: { email: "<string 17-256>" } }, { value: { email: "<string 1-16>" } }],
    });
  });
});

describe("inference", () => {
  it("widens a field of varying type, makes partly-present fields optional and keeps unknown keys", async () => {
    const values = [
      { city: "a", temperature: 20.5, readings: [{ hour: 1, value: 2.5 }], wind: { speed: 3 } },
      { city: "b", temperature: "n/a", readings: [{ hour: 2, value: 1.5, note: "gust" }] },
      { city: "c", temperature: 19, readings: [] },
    ];
    const schema = await inferSchema(values);
    expect(schema).toEqual({
      type: "object",
      properties: {
        city: { type: "string" },
        temperature: { anyOf: [{ type: "number" }, { type: "string" }] },
        readings: {
          type: "array",
          items: {
            type: "object",
            properties: { hour: { type: "integer" }, value: { type: "number" }, note: { type: "string" } },
            required: ["hour", "value"],
          },
        },
        wind: { type: "object", properties: { speed: { type: "integer" } }, required: ["speed"] },
      },
      required: ["city", "readings", "temperature"],
    });
    const fields = fieldStats(schema, values);
    expect(consistentObservations(values)).toBe(2);
    expect(fields.find((field) => field.path === "/temperature")).toEqual({
      path: "/temperature",
      presence: 1,
      types: { integer: 1, number: 1, string: 1 },
    });
    expect(fields.find((field) => field.path === "/wind")?.presence).toBeCloseTo(0.333, 3);
    expect(fields.find((field) => field.path === "/readings/*/note")?.presence).toBe(0.5);
  });

  it("counts an array that always mixes the same kinds as consistent, and one that varies as not", async () => {
    const rows = Array.from({ length: 12 }, (_, index) => ({ row: [`sku-${index}`, index, true] }));
    expect(consistentObservations(rows)).toBe(12);
    const varied = [...rows, { row: ["sku-x", "twelve", true] }];
    expect(consistentObservations(varied)).toBe(12);
  });

  it("keeps recursive types as $defs and treats always-null fields as unknown", async () => {
    const schema = await inferSchema([{ tree: { name: "a", children: [{ name: "b", children: [] }] }, gone: null }]);
    expect(schema.properties).toMatchObject({ tree: { properties: { children: { items: { $ref: "#/$defs/Tree" } } } }, gone: {} });
    expect(schema.$defs).toMatchObject({ Tree: { properties: { children: { type: "array", items: { $ref: "#/$defs/Tree" } } } } });
  });
});
