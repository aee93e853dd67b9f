import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { CompositionClient, type JsonValue } from "@pmcp-codegen/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildDeclarations, RESERVED_GLOBALS } from "../../dist/exec/declarations.js";
import type { CompiledProgram, HostBridge, RunOutcome } from "../../dist/exec/executor.js";
import { DEFAULT_LIMITS, type Limits } from "../../dist/exec/limits.js";
import { QuickJsExecutor } from "../../dist/exec/quickjs-executor.js";
import { FIXTURES } from "../helpers/cli.js";
import { runs } from "../helpers/full-run.js";

// The executor runs its worker from dist/, so these tests use the built code (npm run build).

const globals: CompiledProgram["globals"] = {
  inventory: {
    getStock: { server: "inventory", tool: "get_stock", returns: "value" },
    fail: { server: "inventory", tool: "fail", returns: "value" },
    page: { server: "inventory", tool: "page", returns: "content" },
    learned: { server: "inventory", tool: "learned", returns: "parsed" },
    prose: { server: "inventory", tool: "prose", returns: "parsed" },
    hang: { server: "inventory", tool: "hang", returns: "value" },
  },
};

/** A bridge answering like a CompositionClient would, recording what it was asked. */
function bridge(answers: { getStock?: (args: JsonValue) => JsonValue | Promise<JsonValue> } = {}) {
  const seen: { tool: string; args: JsonValue; signal: AbortSignal }[] = [];
  const host: HostBridge = {
    async call(server, tool, args, signal) {
      seen.push({ tool, args, signal });
      if (tool === "fail")
        throw Object.assign(new Error(`${server}/${tool}: out of beans`), {
          name: "ToolCallError",
          code: "TOOL_CALL_FAILED",
          serverId: server,
          toolName: tool,
        });
      if (tool === "page")
        return {
          content: [
            { type: "text", text: '{"total":3}' },
            { type: "image", data: "AA==", mimeType: "image/png" },
          ],
        };
      if (tool === "learned") return { raw: { content: [{ type: "text", text: '{"total":3}' }] }, value: { total: 3 } };
      if (tool === "prose") return { raw: { content: [{ type: "text", text: "no data today" }] } };
      if (tool === "hang") return new Promise<JsonValue>(() => {});
      return answers.getStock === undefined ? { sku: "SKU-1", quantity: 7 } : answers.getStock(args);
    },
  };
  return { host, seen };
}

let executor: QuickJsExecutor;

beforeAll(() => {
  executor = new QuickJsExecutor({ workers: 2 });
});

afterAll(async () => {
  await executor.close();
});

function run(code: string, limits: Partial<Limits> = {}, host: HostBridge = bridge().host): Promise<RunOutcome> {
  return executor.run({ code, globals }, host, limits);
}

/** The tag and value of an outcome, for exact comparison. */
function tagged(outcome: RunOutcome): unknown {
  return outcome.ok ? { ok: true, result: outcome.result } : { ok: false, kind: outcome.kind, message: outcome.message };
}

/** The host is untouched and the next program runs normally. */
async function expectHealthy(): Promise<void> {
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  const next = await run("const stock = await inventory.getStock({ sku: 'SKU-1' }); return [stock.quantity, typeof leaked];");
  expect(tagged(next)).toEqual({ ok: true, result: [7, "undefined"] });
}

describe("a program's results, logs, calls and errors", () => {
  it("returns its value as JSON with its logs and calls", async () => {
    const outcome = await run(
      "console.log('start', { n: 1 }); console.warn('careful'); const s = await inventory.getStock({ sku: 'SKU-1' }); return { s, when: undefined };",
    );
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.result).toEqual({ s: { sku: "SKU-1", quantity: 7 } });
    expect(outcome.logs).toEqual(['start {"n":1}', "warn: careful"]);
    expect(outcome.calls.map(({ server, tool, ok }) => ({ server, tool, ok }))).toEqual([
      { server: "inventory", tool: "get_stock", ok: true },
    ]);
  });

  it("gets a failed call as a catchable error with name, code, serverId, toolName and message", async () => {
    const outcome = await run(
      "try { await inventory.fail({}); } catch (e) { return [e instanceof Error, e.name, e.code, e.serverId, e.toolName, e.message]; }",
    );
    expect(tagged(outcome)).toEqual({
      ok: true,
      result: [true, "ToolCallError", "TOOL_CALL_FAILED", "inventory", "fail", "inventory/fail: out of beans"],
    });
    expect(outcome.calls.map(({ ok, code }) => ({ ok, code }))).toEqual([{ ok: false, code: "TOOL_CALL_FAILED" }]);
  });

  it("gets arguments JSON cannot carry as an ArgumentError naming where, and nothing is sent (JSON.stringify would send null)", async () => {
    const { host, seen } = bridge();
    const outcome = await run(
      `const tries = [{ xs: [1, 1 / 0] }, { "a/b": { n: NaN } }, { at: { toJSON: () => -Infinity } }, { n: 10n }, () => 1];
       const errors = [];
       for (const args of tries) {
         try { await inventory.getStock(args); } catch (e) { errors.push([e.name, e.code, e.serverId, e.toolName, e.message]); }
       }
       return errors;`,
      {},
      host,
    );
    const prefix = "inventory/get_stock: the arguments cannot be sent as JSON: ";
    expect(tagged(outcome)).toEqual({
      ok: true,
      result: [
        "/xs/1: Infinity is not a number JSON can carry",
        "/a~1b/n: NaN is not a number JSON can carry",
        "/at: -Infinity is not a number JSON can carry",
        "/n: a BigInt is not a number JSON can carry",
        "a function has no JSON text",
      ].map((reason) => ["ArgumentError", "INVALID_ARGUMENTS", "inventory", "get_stock", prefix + reason]),
    });
    expect(seen).toEqual([]);
  });

  it("gets a tool without an output schema as a ToolResult: content, text, images, json(), require()", async () => {
    const outcome = await run(`
      const page = await inventory.page();
      let missing;
      try { page.require("absent"); } catch (e) { missing = [e.name, e.code, e.message]; }
      return [page.content.length, page.text, page.images.length, page.json(), page.get("total"), page.has("x"), page.isError, missing];
    `);
    expect(tagged(outcome)).toEqual({
      ok: true,
      result: [
        2,
        '{"total":3}',
        1,
        { total: 3 },
        3,
        false,
        false,
        ["InvalidResponseError", "INVALID_RESPONSE", 'inventory/page: the result has no key "absent"'],
      ],
    });
  });

  it("gets a tool typed by inference as a ToolResult with its value in .value, undefined when the result held no JSON", async () => {
    const outcome = await run(`
      const learned = await inventory.learned();
      const prose = await inventory.prose();
      return [learned.value, learned.text, learned.get("total"), prose.value === undefined, prose.text, typeof prose.json];
    `);
    expect(tagged(outcome)).toEqual({ ok: true, result: [{ total: 3 }, '{"total":3}', 3, true, "no data today", "function"] });
  });

  it("reports an uncaught throw, and a syntax error as invalid input", async () => {
    expect(tagged(await run("throw new RangeError('no stock');"))).toEqual({
      ok: false,
      kind: "uncaught",
      message: "RangeError: no stock",
    });
    const at = (outcome: RunOutcome) => (outcome.ok ? undefined : outcome.at);
    const first = await run("return (;");
    expect([tagged(first), at(first)]).toEqual([
      { ok: false, kind: "invalid_input", message: "SyntaxError: unexpected token in expression: ';'" },
      { line: 1, column: 9 },
    ]);
    const second = await run("let a = 1;\nreturn a +* 2;");
    expect([tagged(second), at(second)]).toEqual([
      { ok: false, kind: "invalid_input", message: "SyntaxError: unexpected token in expression: '*'" },
      { line: 2, column: 11 },
    ]);
    await expectHealthy();
  });

  it("reports a program that waits for a promise nothing can settle at once, not at its deadline", async () => {
    expect(tagged(await run("await new Promise(() => {});"))).toEqual({
      ok: false,
      kind: "uncaught",
      message: "the program awaits a promise that nothing can settle",
    });
  });

  it("refuses a global name that is not an identifier, and one that shadows a built-in", async () => {
    const host = bridge().host;
    const bad = await executor.run({ code: "return 1", globals: { "a-b": {} } }, host);
    expect(tagged(bad)).toEqual({ ok: false, kind: "invalid_input", message: 'the global name "a-b" is not an identifier' });
    const shadow = await executor.run({ code: "return 1", globals: { JSON: {} } }, host);
    expect(tagged(shadow)).toEqual({ ok: false, kind: "uncaught", message: 'TypeError: the global "JSON" already exists' });
  });
});

describe("escapes end in a tagged outcome or a harmless value, and the next program runs normally", () => {
  it.each([
    ["process", "return typeof process;", { ok: true, result: "undefined" }],
    ["process.exit", "process.exit(1);", { ok: false, kind: "uncaught", message: "ReferenceError: process is not defined" }],
    ["require", "return require('node:fs');", { ok: false, kind: "uncaught", message: "ReferenceError: require is not defined" }],
    [
      "dynamic import()",
      "return await import('node:fs');",
      { ok: false, kind: "uncaught", message: "ReferenceError: could not load module 'node:fs'" },
    ],
    ["fetch", "return await fetch('http://127.0.0.1/');", { ok: false, kind: "uncaught", message: "ReferenceError: fetch is not defined" }],
    [
      "the Function constructor",
      "return Function('return [typeof process, typeof require]')();",
      { ok: true, result: ["undefined", "undefined"] },
    ],
    [
      "the AsyncFunction constructor",
      "const AsyncFunction = (async () => {}).constructor; return await AsyncFunction('return typeof process')();",
      { ok: true, result: "undefined" },
    ],
    [
      "globalThis.constructor.constructor",
      "return globalThis.constructor.constructor('return typeof process')();",
      { ok: true, result: "undefined" },
    ],
    [
      "the constructor chain of a bridge function",
      "return [await inventory.getStock.constructor('return typeof process')(), inventory.getStock.constructor.constructor('return typeof require')()];",
      { ok: true, result: ["undefined", "undefined"] },
    ],
    [
      // Call sites' getFunction() would hand the program the prelude's own closures.
      "Error.prepareStackTrace",
      `const seen = [];
       try { Error.prepareStackTrace = (e, sites) => { for (const site of sites) seen.push(typeof site.getFunction()); return ""; }; } catch {}
       const call = inventory.getStock({});
       try { null.x; } catch (e) { e.stack; }
       new Error("here").stack;
       await call;
       return [seen, typeof Error.prepareStackTrace];`,
      { ok: true, result: [[], "undefined"] },
    ],
    [
      "the constructor chain of a returned value",
      "const stock = await inventory.getStock({}); return stock.constructor.constructor('return typeof process')();",
      { ok: true, result: "undefined" },
    ],
    [
      "the constructor chain of a caught error",
      "try { await inventory.fail({}); } catch (e) { return e.constructor.constructor('return typeof process')(); }",
      { ok: true, result: "undefined" },
    ],
    [
      "timers",
      "return [typeof setTimeout, typeof setInterval, typeof setImmediate];",
      { ok: true, result: ["undefined", "undefined", "undefined"] },
    ],
    ["setInterval", "setInterval(() => {}, 0);", { ok: false, kind: "uncaught", message: "ReferenceError: setInterval is not defined" }],
    [
      "deep recursion",
      "function down(n) { return down(n + 1) + 1; } return down(0);",
      { ok: false, kind: "uncaught", message: "RangeError: Maximum call stack size exceeded" },
    ],
  ])("%s", async (_name, code, expected) => {
    expect(tagged(await run(code))).toEqual(expected);
    await expectHealthy();
  });

  it("prototype pollution: __proto__ and constructor keys in results and arguments touch neither the host nor the next program", async () => {
    const polluting = JSON.parse('{"__proto__": {"polluted": "yes"}, "constructor": {"prototype": {"polluted": "yes"}}, "quantity": 7}');
    const { host, seen } = bridge({ getStock: () => polluting });
    const outcome = await run(
      `const stock = await inventory.getStock(JSON.parse('{"__proto__": {"polluted": "yes"}}'));
       Object.prototype.leaked = "yes";
       return [({}).polluted === undefined, Object.getPrototypeOf(stock) === Object.prototype, stock.quantity];`,
      {},
      host,
    );
    expect(tagged(outcome)).toEqual({ ok: true, result: [true, true, 7] });
    const args = seen[0]?.args as object;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.keys(args)).toEqual(["__proto__"]);
    expect((Object.prototype as Record<string, unknown>).leaked).toBeUndefined();
    await expectHealthy();
  });

  it("isolation: a global set by one program is not seen by the next", async () => {
    expect(tagged(await run("globalThis.leaked = 1; Array.prototype.map = null; return typeof leaked;"))).toEqual({
      ok: true,
      result: "number",
    });
    expect(tagged(await run("return [typeof leaked, typeof [].map];"))).toEqual({ ok: true, result: ["undefined", "function"] });
    await expectHealthy();
  });
});

describe("every limit is its own kind, and the host carries on", () => {
  // The watchdog's delay (deadline + grace) passed Node's 32-bit timer limit, so it fired after 1 ms and ended every program.
  it("the largest time limit accepted runs a program to its end", async () => {
    const outcome = await run("const stock = await inventory.getStock({ sku: 'SKU-1' }); return stock.quantity;", {
      timeoutMs: 2 ** 31 - 1,
    });
    expect(tagged(outcome)).toEqual({ ok: true, result: 7 });
  });

  it("an endless loop before any await: timeout", async () => {
    expect(tagged(await run("while (true) {}", { timeoutMs: 1000 }))).toEqual({
      ok: false,
      kind: "timeout",
      message: "the program's time limit of 1000 ms ran out while it ran",
    });
    await expectHealthy();
  });

  // The type-check ran before the limit's clock started: a program checked for 4 s then looping ran 12 s under an 8 s limit.
  it("the time limit counts from the program's arrival: one that arrived its whole limit ago is stopped at once", async () => {
    const outcome = await executor.run(
      { code: "while (true) {}", globals },
      bridge().host,
      { timeoutMs: 60_000 },
      performance.now() - 60_000,
    );
    expect(tagged(outcome)).toEqual({ ok: false, kind: "timeout", message: "the program's time limit of 60000 ms ran out while it ran" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(60_000);
    await expectHealthy();
  });

  it("an endless loop after an await: timeout, with the call already made reported", async () => {
    const outcome = await run("await inventory.getStock({}); while (true) {}", { timeoutMs: 1000 });
    expect(tagged(outcome)).toEqual({ ok: false, kind: "timeout", message: "the program's time limit of 1000 ms ran out while it ran" });
    expect(outcome.calls.map(({ tool, ok }) => ({ tool, ok }))).toEqual([{ tool: "get_stock", ok: true }]);
    await expectHealthy();
  });

  it("an endless loop of awaits: timeout at its deadline, not seconds later", async () => {
    for (const code of ["while (true) { await null; }", "for (;;) await Promise.resolve(1);"]) {
      const outcome = await run(code, { timeoutMs: 500 });
      expect(tagged(outcome)).toEqual({ ok: false, kind: "timeout", message: "the program's time limit of 500 ms ran out while it ran" });
      // Looking at the clock every 1,024th interrupt stopped these after ~3.4 s whatever the limit.
      expect(outcome.durationMs).toBeLessThan(2_500);
    }
    await expectHealthy();
  });

  it("a loop that catches the interrupt is still stopped", async () => {
    const outcome = await run("for (;;) { try { while (true) {} } catch { console.log('caught'); } }", { timeoutMs: 1000 });
    expect(tagged(outcome)).toEqual({ ok: false, kind: "timeout", message: "the program's time limit of 1000 ms ran out while it ran" });
    expect(outcome.logs).toEqual([]);
  });

  it("catastrophic regular-expression backtracking: timeout", async () => {
    expect(tagged(await run('return /(a+)+$/.test("a".repeat(40) + "b");', { timeoutMs: 1000 }))).toEqual({
      ok: false,
      kind: "timeout",
      message: "the program's time limit of 1000 ms ran out while it ran",
    });
    await expectHealthy();
  });

  it("a built-in that never looks at the interrupt: its worker is ended after the deadline, and a new one takes its place", async () => {
    // QuickJS sorts a sparse array of 2³²−1 slots without checking for an interrupt.
    expect(tagged(await run("const slots = []; slots.length = 2 ** 32 - 1; return slots.sort().length;", { timeoutMs: 1000 }))).toEqual({
      ok: false,
      kind: "timeout",
      message: "the program's time limit of 1000 ms ran out while it ran, and its sandbox was ended",
    });
    await expectHealthy();
  });

  it("a program stopped while a call is in flight: the call is aborted and reported", async () => {
    const { host, seen } = bridge();
    const outcome = await run("await inventory.getStock({}); await inventory.hang({});", { timeoutMs: 1000 }, host);
    expect(tagged(outcome)).toEqual({ ok: false, kind: "timeout", message: "the program's time limit of 1000 ms ran out while it ran" });
    expect(outcome.calls.map(({ tool, ok, code }) => ({ tool, ok, code }))).toEqual([
      { tool: "get_stock", ok: true, code: undefined },
      { tool: "hang", ok: false, code: "ABORTED" },
    ]);
    expect(seen.map(({ signal }) => signal.aborted)).toEqual([false, true]);
  });

  it("a memory bomb: memory", async () => {
    expect(tagged(await run("const parts = []; for (;;) parts.push('x'.repeat(1000) + parts.length);"))).toEqual({
      ok: false,
      kind: "memory",
      message: "the program used more memory than its limit",
    });
    await expectHealthy();
  });

  it("a host answer bigger than the program's heap: memory", async () => {
    const { host } = bridge({ getStock: () => "x".repeat(8 * 1024 * 1024) });
    const outcome = await run("return (await inventory.getStock({})).length;", { heapBytes: 4 * 1024 * 1024 }, host);
    expect(tagged(outcome)).toEqual({ ok: false, kind: "memory", message: "the program used more memory than its limit" });
    await expectHealthy();
  });

  it("a huge return value: output_limit, with the value cut structurally and still JSON", async () => {
    const outcome = await run(
      "console.log('made'); return { items: Array.from({ length: 10000 }, (_, i) => ({ i, name: 'item ' + i })), total: 10000 };",
      { maxOutputBytes: 4096 },
    );
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect([outcome.kind, outcome.logs]).toEqual(["output_limit", ["made"]]);
    const result = outcome.result as { items: JsonValue[]; "…": string };
    expect(Buffer.byteLength(JSON.stringify(result)) + Buffer.byteLength("made")).toBeLessThanOrEqual(4096);
    expect(result.items.slice(0, 2)).toEqual([
      { i: 0, name: "item 0" },
      { i: 1, name: "item 1" },
    ]);
    expect(result.items.at(-1)).toMatch(/^…\[\d+ of 10000 items left out\]$/);
    expect(result["…"]).toBe('1 of 2 keys left out; "items" cut short');
    await expectHealthy();
  });

  it("huge logs: output_limit, the lines kept within the limit and a marker last", async () => {
    const outcome = await run("for (;;) console.log('x'.repeat(1000));", { maxOutputBytes: 8192 });
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.kind).toBe("output_limit");
    expect(outcome.logs.at(-1)).toBe("…[logs cut at 8192 bytes]");
    expect(outcome.logs.slice(0, -1)).toEqual(Array.from({ length: 8 }, () => "x".repeat(1000)));
    await expectHealthy();
  });

  it("logs count against the limit to the byte: up to it they pass, past it they are cut", async () => {
    const line = "y".repeat(100);
    const fits = await run(`for (let i = 0; i < 9; i++) console.log(${JSON.stringify(line)}); console.log("z".repeat(90)); return 1;`, {
      maxOutputBytes: 1000,
    });
    expect(fits).toMatchObject({ ok: true, result: 1 });
    if (!fits.ok) return;
    expect(fits.logs).toEqual([...Array.from({ length: 9 }, () => line), "z".repeat(90)]);
    const passes = await run(`for (let i = 0; i < 11; i++) console.log(${JSON.stringify(line)}); return 1;`, { maxOutputBytes: 1000 });
    expect(tagged(passes)).toEqual({ ok: false, kind: "output_limit", message: "the program's logs passed 1000 bytes" });
    if (passes.ok) return;
    expect(passes.logs).toEqual([...Array.from({ length: 9 }, () => line), "…[logs cut at 1000 bytes]"]);
    await expectHealthy();
  });

  it("a tool-call flood: call_limit after exactly the limit's calls", async () => {
    const outcome = await run("for (;;) await inventory.getStock({});", { maxCalls: 25 });
    expect(tagged(outcome)).toEqual({ ok: false, kind: "call_limit", message: "the program made more than 25 tool calls" });
    expect(outcome.calls.map(({ ok }) => ok)).toEqual(Array.from({ length: 25 }, () => true));
    await expectHealthy();
  });

  it("concurrent calls beyond the limit wait their turn", async () => {
    let inFlight = 0;
    let most = 0;
    const host = bridge({
      getStock: async (args) => {
        inFlight++;
        most = Math.max(most, inFlight);
        await new Promise((resolve) => setTimeout(resolve, 20));
        inFlight--;
        return args;
      },
    }).host;
    const outcome = await run(
      "const all = await Promise.all(Array.from({ length: 40 }, (_, i) => inventory.getStock({ i }))); return all.map((a) => a.i);",
      { maxConcurrentCalls: 16 },
      host,
    );
    expect(tagged(outcome)).toEqual({ ok: true, result: Array.from({ length: 40 }, (_, i) => i) });
    expect(most).toBe(16);
  });

  it("a flood of concurrent calls: call_limit, the calls in flight aborted", async () => {
    const { host, seen } = bridge({ getStock: () => new Promise<JsonValue>(() => {}) });
    const outcome = await run("await Promise.all(Array.from({ length: 50 }, () => inventory.getStock({})));", { maxCalls: 30 }, host);
    expect(tagged(outcome)).toEqual({ ok: false, kind: "call_limit", message: "the program made more than 30 tool calls" });
    expect(outcome.calls.map(({ code }) => code)).toEqual(Array.from({ length: 16 }, () => "ABORTED"));
    expect(seen.map(({ signal }) => signal.aborted)).toEqual(Array.from({ length: 16 }, () => true));
    await expectHealthy();
  });

  it("limits that are not whole numbers ≥ 1: invalid_input", async () => {
    expect(tagged(await run("return 1", { timeoutMs: 0 }))).toEqual({
      ok: false,
      kind: "invalid_input",
      message: "the limit timeoutMs must be a whole number ≥ 1, got 0",
    });
  });
});

describe("server globals beside the sandbox's own", () => {
  it("reserves every global of the sandbox a server id could camel-case to, inherited ones included", async () => {
    const code = `const names = new Set();
for (let o = globalThis; o; o = Object.getPrototypeOf(o)) for (const n of Object.getOwnPropertyNames(o)) names.add(n);
return [...names].filter((n) => /^[a-z]/.test(n)).sort();`;
    const outcome = await executor.run({ code, globals: {} }, bridge().host);
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect((outcome.result as string[]).filter((name) => !RESERVED_GLOBALS.includes(name))).toEqual([]);
  });

  it("servers named like the sandbox's globals get their own names, and a program runs with all of them", async () => {
    const ids = ["performance", "to-string", "value-of", "btoa", "undefined"];
    const { servers } = buildDeclarations({
      version: "1.0",
      servers: ids.map((id) => ({ id, tools: [{ name: "get", inputSchema: { type: "object" } }] })),
    });
    expect(servers.map((server) => server.global)).toEqual(["performance2", "toString2", "valueOf2", "btoa2", "undefined_"]);
    const program = Object.fromEntries(
      servers.map((server) => [server.global, { get: { server: server.serverId, tool: "get", returns: "value" as const } }]),
    );
    const { host, seen } = bridge({ getStock: () => "answered" });
    const code = "return [await performance2.get({}), await toString2.get({}), typeof performance.now, typeof toString];";
    const outcome = await executor.run({ code, globals: program }, host);
    expect(tagged(outcome)).toEqual({ ok: true, result: ["answered", "answered", "function", "function"] });
    expect(seen.map((call) => call.tool)).toEqual(["get", "get"]);
  });
});

describe("concurrency", () => {
  it("programs beyond the pool's size wait for a worker", async () => {
    const own = new QuickJsExecutor({ workers: 2 });
    let running = 0;
    let most = 0;
    const host = bridge({
      getStock: async (args) => {
        running++;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 50));
        running--;
        return args;
      },
    }).host;
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 6 }, (_, i) => own.run({ code: `return (await inventory.getStock({ i: ${i} })).i;`, globals }, host)),
      );
      expect(outcomes.map(tagged)).toEqual(Array.from({ length: 6 }, (_, i) => ({ ok: true, result: i })));
      expect(most).toBe(2);
    } finally {
      await own.close();
    }
  });

  it("time spent waiting for a worker counts against the wall-time limit", async () => {
    const own = new QuickJsExecutor({ workers: 1 });
    let release = () => {};
    let holding = () => {};
    // The busy program holds the only worker from its call on; the worker's start-up may take longer than the limit.
    const called = new Promise<void>((resolve) => (holding = resolve));
    const host = bridge({
      getStock: () => {
        holding();
        return new Promise((resolve) => (release = () => resolve({ done: true })));
      },
    }).host;
    try {
      const busy = own.run({ code: "return await inventory.getStock({});", globals }, host);
      await called;
      const queued = await own.run({ code: "return 1;", globals }, host, { timeoutMs: 300 });
      expect(tagged(queued)).toEqual({
        ok: false,
        kind: "timeout",
        message: "the program's time limit of 300 ms ran out while it waited for a free sandbox; it never ran",
      });
      expect(queued.durationMs).toBeGreaterThanOrEqual(290);
      release();
      expect(tagged(await busy)).toEqual({ ok: true, result: { done: true } });
      // The waiter that timed out is gone: the next program gets the worker.
      expect(tagged(await own.run({ code: "return 2;", globals }, host))).toEqual({ ok: true, result: 2 });
    } finally {
      await own.close();
    }
  });

  it("10 programs at once each get their own answer", async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        run(
          `globalThis.mine = ${i}; const s = await inventory.getStock({ i: ${i} }); await inventory.getStock({}); return [s.i, mine];`,
          {},
          bridge({ getStock: (args) => args }).host,
        ),
      ),
    );
    expect(outcomes.map(tagged)).toEqual(Array.from({ length: 10 }, (_, i) => ({ ok: true, result: [i, i] })));
  });
});

describe("the host process", () => {
  it("close() ends a running program, its pending call aborted, and later runs are refused", async () => {
    const own = new QuickJsExecutor({ workers: 1 });
    const { host, seen } = bridge();
    const running = own.run({ code: "await inventory.hang({});", globals }, host);
    while (seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    await own.close();
    const outcome = await running;
    expect(tagged(outcome)).toEqual({ ok: false, kind: "uncaught", message: "the sandbox failed: the executor was closed" });
    expect(outcome.calls.map(({ tool, code }) => ({ tool, code }))).toEqual([{ tool: "hang", code: "ABORTED" }]);
    expect(seen.map(({ signal }) => signal.aborted)).toEqual([true]);
    expect(tagged(await own.run({ code: "return 1;", globals }, host))).toEqual({
      ok: false,
      kind: "uncaught",
      message: "the executor was closed before the program started",
    });
  });

  it("prints no warning for a program that reaches its timers past its deadline", async () => {
    // Node 23 and later warn (TimeoutNegativeWarning) when a timer is given a negative delay.
    const script = `
      import { QuickJsExecutor } from ${JSON.stringify(new URL("../../dist/exec/quickjs-executor.js", import.meta.url).href)};
      const executor = new QuickJsExecutor({ workers: 1 });
      const globals = { inventory: { hold: { server: "inventory", tool: "hold", returns: "value" } } };
      let holding;
      const held = new Promise((resolve) => (holding = resolve));
      let release;
      const host = { call: () => { holding(); return new Promise((resolve) => (release = resolve)); } };
      const busy = executor.run({ code: "return await inventory.hold({});", globals }, host);
      await held;
      // Arrived 10 s ago with a 1 s limit: its deadline passed before it waits for the only worker.
      const queued = await executor.run({ code: "return 1;", globals }, host, { timeoutMs: 1000 }, performance.now() - 10_000);
      release(2);
      await busy;
      // On the idle worker: the host's watchdog and the worker's own timer are set past the deadline.
      const late = await executor.run({ code: "return await inventory.hold({});", globals }, host, { timeoutMs: 1000 }, performance.now() - 10_000);
      await executor.close();
      console.log(JSON.stringify([queued.kind, late.kind]));`;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ["--input-type=module", "--eval", script]);
    expect({ stdout, stderr }).toStrictEqual({ stdout: '["timeout","timeout"]\n', stderr: "" });
  });

  it("runs programs whatever flags the host was started with (the workers take none of them)", async () => {
    const script = `
      import { QuickJsExecutor } from ${JSON.stringify(new URL("../../dist/exec/quickjs-executor.js", import.meta.url).href)};
      const executor = new QuickJsExecutor({ workers: 1 });
      const outcome = await executor.run({ code: "return 6 * 7;", globals: {} }, { call: async () => null });
      await executor.close();
      console.log(JSON.stringify(outcome.ok ? outcome.result : outcome.message));`;
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "--eval", script]);
    expect(stdout).toBe("42\n");
  });
});

/** Answers of 400 KB in the memory case: 1,000 in a full run. */
/** A quarter of the default heap: the claim below is about a heap's worth, and each answer costs the suite CPU. */
const HEAP_BYTES = DEFAULT_LIMITS.heapBytes / 4;
const ANSWERS = runs(250, 100);

describe("the bridge wired to a real CompositionClient over stdio", () => {
  // Each answer stayed in the VM until the program ended: 200 such calls ended in [Memory limit] after about 160.
  // 100 answers are two and a half heaps: enough to show that what is dropped is freed; 250 in a full run.
  it(`a program's memory is what it keeps: ${ANSWERS} answers of 400 KB, none kept, fit a ${HEAP_BYTES / 2 ** 20} MB heap; kept, they do not`, async () => {
    const client = new CompositionClient({
      servers: { large: { command: process.execPath, args: [join(FIXTURES, "large-message-server.mjs")] } },
      timeoutMs: 30_000,
    });
    const host: HostBridge = {
      async call(server, tool, args, signal) {
        return (await client.callToolForResult({ server, tool, args: args as object }, { signal })).raw as unknown as JsonValue;
      },
    };
    const large = { large: { big: { server: "large", tool: "big", returns: "content" as const } } };
    // 400 KiB of text in {"text":"…"}: 409,611 characters an answer.
    const big = "(await large.big({ mb: 400 / 1024 })).text";
    const limits = { maxCalls: ANSWERS, timeoutMs: 2 ** 31 - 1, heapBytes: HEAP_BYTES };
    try {
      const dropped = await executor.run(
        { code: `let chars = 0;\nfor (let i = 0; i < ${ANSWERS}; i++) chars += ${big}.length;\nreturn chars;`, globals: large },
        host,
        limits,
      );
      expect(tagged(dropped)).toEqual({ ok: true, result: ANSWERS * 409_611 });
      const kept = await executor.run(
        { code: `const texts = [];\nfor (let i = 0; i < ${ANSWERS}; i++) texts.push(${big});`, globals: large },
        host,
        limits,
      );
      expect(tagged(kept)).toEqual({ ok: false, kind: "memory", message: "the program used more memory than its limit" });
      expect(kept.calls.length).toBeLessThan(HEAP_BYTES / 409_611);
    } finally {
      await client.close();
    }
  }, 600_000);

  it("passes JSON in and JSON out, values and content results and typed errors", async () => {
    const client = new CompositionClient({
      servers: { typed: { command: process.execPath, args: [join(FIXTURES, "typed-server.mjs")] } },
      timeoutMs: 30_000,
    });
    const stock = z.object({ sku: z.string(), quantity: z.number().int(), location: z.tuple([z.number(), z.number()]).nullable() });
    const host: HostBridge = {
      async call(server, tool, args, signal) {
        const call = { server, tool, args: args as object };
        if (tool === "ping") return (await client.callToolForResult(call, { signal })).raw as unknown as JsonValue;
        return client.callTool({ ...call, parse: stock }, { signal });
      },
    };
    try {
      const outcome = await executor.run(
        {
          code: `
            const stock = await typed.getStock({ sku: "SKU-9" });
            const pong = await typed.ping();
            let bad;
            try { await typed.getStock({ sku: 42 }); } catch (e) { bad = [e.name, e.code, e.serverId, e.toolName]; }
            return { stock, pong: pong.text, bad };`,
          globals: {
            typed: {
              getStock: { server: "typed", tool: "get_stock", returns: "value" },
              ping: { server: "typed", tool: "ping", returns: "content" },
            },
          },
        },
        host,
      );
      expect(tagged(outcome)).toEqual({
        ok: true,
        result: {
          stock: { sku: "SKU-9", quantity: 7, location: null },
          pong: "pong",
          bad: ["ToolCallError", "TOOL_CALL_FAILED", "typed", "get_stock"],
        },
      });
      expect(outcome.calls.map(({ server, tool, ok, code }) => ({ server, tool, ok, code }))).toEqual([
        { server: "typed", tool: "get_stock", ok: true, code: undefined },
        { server: "typed", tool: "ping", ok: true, code: undefined },
        { server: "typed", tool: "get_stock", ok: false, code: "TOOL_CALL_FAILED" },
      ]);
    } finally {
      await client.close();
    }
  });
});
