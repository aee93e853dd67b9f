import { describe, expect, it } from "vitest";
import type { ExecOutcome } from "../../src/exec/exec-session.js";
import { ENVELOPE_BYTES, programAnswer } from "../../src/exec/program-answer.js";

// The limit counts what is sent: the answer's JSON, both its copies of the fields, escapes
// included, with room for the JSON-RPC envelope.

const sent = (answer: object) => Buffer.byteLength(JSON.stringify(answer)) + ENVELOPE_BYTES;
const call = (i: number) => ({ server: "inventory", tool: `get_stock_${i}`, durationMs: 12.5, ok: true });
const ok = (result: unknown, extra: { logs?: string[] } = {}) =>
  ({ ok: true, result, logs: [], calls: [], durationMs: 3.2, ...extra }) as ExecOutcome;

describe("programAnswer", () => {
  it("leaves an answer that fits as it is, tag, text and structured copy", () => {
    const answer = programAnswer(ok({ sku: "A1" }), 1024);
    expect(answer).toEqual({
      content: [{ type: "text", text: '[Script executed successfully]\n{"result":{"sku":"A1"},"logs":[],"calls":[],"durationMs":3.2}' }],
      structuredContent: { result: { sku: "A1" }, logs: [], calls: [], durationMs: 3.2 },
    });
  });

  it("cuts a result that fits once but not twice, and says so with [Output limit]", () => {
    const answer = programAnswer(ok("x".repeat(700)), 1024);
    expect(sent(answer)).toBeLessThanOrEqual(1024);
    expect(answer.isError).toBe(true);
    const [first, json] = answer.content[0]?.text.split("\n") ?? [];
    expect(first).toMatch(/^\[Output limit\] the answer is [\d,]+ bytes, more than 1024; cut to fit 1024 bytes: the result$/);
    expect(answer.structuredContent.result).toMatch(/^x+…\[\d+ characters left out\]$/);
    expect(JSON.parse(json ?? "")).toEqual(answer.structuredContent);
  });

  it.each([
    ["quotes, escaped twice in the text copy", '"'.repeat(20_000)],
    ["control characters, six bytes each and seven in the text", "\u0001".repeat(20_000)],
    ["characters of four UTF-8 bytes", "😀".repeat(20_000)],
  ])("keeps an answer of %s within the limit", (_name, text) => {
    for (const limit of [1024, 4096, 65_536]) {
      const answer = programAnswer(ok({ text, list: [text, text] }), limit);
      expect(sent(answer)).toBeLessThanOrEqual(limit);
      expect(JSON.stringify(answer.structuredContent.result)).toMatch(/left out/);
      // Cut as little as fits: within a tenth of the limit of it.
      expect(sent(answer)).toBeGreaterThan(limit * 0.9 - 200);
    }
  });

  it("cuts the logs before the result, with a last line that says how many were left out", () => {
    const logs = Array.from({ length: 400 }, (_, i) => `line ${i}`);
    const answer = programAnswer(ok(1, { logs }), 2048);
    expect(sent(answer)).toBeLessThanOrEqual(2048);
    expect(answer.structuredContent.result).toBe(1);
    const kept = answer.structuredContent.logs;
    expect(kept.slice(0, -1)).toEqual(logs.slice(0, kept.length - 1));
    expect(kept.at(-1)).toBe(`…[${400 - (kept.length - 1)} of 400 log lines left out]`);
    expect(answer.content[0]?.text.split("\n")[0]).toMatch(/; cut to fit 2048 bytes: the logs$/);
  });

  it("lists as many calls as fit and says how many of all, keeping a failure's own tag and message", () => {
    const calls = Array.from({ length: 200 }, (_, i) => call(i));
    const failed: ExecOutcome = { ok: false, kind: "call_limit", message: "more than 200 tool calls", logs: [], calls, durationMs: 9 };
    const answer = programAnswer(failed, 4096);
    expect(sent(answer)).toBeLessThanOrEqual(4096);
    const listed = answer.structuredContent.calls.length;
    expect(answer.structuredContent.calls).toEqual(calls.slice(0, listed));
    expect(answer.content[0]?.text.split("\n")[0]).toBe(
      `[Call limit] more than 200 tool calls; cut to fit 4096 bytes: ${listed} of 200 calls listed`,
    );
  });

  it("cuts a type error's diagnostics, and last a message too long for the limit", () => {
    const diagnostics = Array.from({ length: 50 }, (_, i) => ({
      line: i + 1,
      column: 1,
      code: 2304,
      message: `Cannot find name 'n${i}'.`,
    }));
    const typeError: ExecOutcome = {
      ok: false,
      kind: "type_error",
      message: "50 problems; nothing was run",
      diagnostics,
      omitted: 0,
      logs: [],
      calls: [],
      durationMs: 0,
    };
    const answer = programAnswer(typeError, 1024);
    expect(sent(answer)).toBeLessThanOrEqual(1024);
    const lines = answer.content[0]?.text.split("\n") ?? [];
    expect(lines[0]).toBe("[Type error] 50 problems; nothing was run; cut to fit 1024 bytes: the problems listed");
    expect(lines[1]).toBe("1:1 Cannot find name 'n0'.");
    expect(lines.at(-2)).toMatch(/^… \d+ more problems not listed/);

    const long: ExecOutcome = { ok: false, kind: "uncaught", message: `Error: ${'"'.repeat(2000)}`, logs: [], calls: [], durationMs: 1 };
    const clipped = programAnswer(long, 1024);
    expect(sent(clipped)).toBeLessThanOrEqual(1024);
    expect(clipped.content[0]?.text.split("\n")[0]).toMatch(/^\[Uncaught error\] Error: "+…$/);
  });
});
