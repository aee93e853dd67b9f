import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { CheckerHost, MIN_CHECK_MS } from "../../dist/exec/checker-host.js";
import type { Bundle, InferredTool } from "../../src/bundle/types.js";
import { readSchemaFiles } from "../../src/bundle-files/read.js";
import { MAX_DIAGNOSTIC_BYTES, MAX_DIAGNOSTICS, PROGRAM_DIAGNOSTIC } from "../../src/exec/check-protocol.js";
import { buildDeclarations, type ClientDeclarations } from "../../src/exec/declarations.js";
import { createProgramChecker, MAX_PROGRAM_BYTES, type ProgramChecker } from "../../src/exec/type-check.js";
import { FIXTURES, runCli } from "../helpers/cli.js";
import { alive, childPids } from "../helpers/processes.js";
import { COMPILE_BUDGET_MS, outputDir, typecheck } from "../helpers/typescript.js";

/**
 * A server whose names and texts need escaping: a dashed tool name, a description that tries
 * to close its comment and declare a global, backticks and `${}` everywhere, a type named `Promise`.
 */
const SHOP_SERVER = `
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";
const server = new McpServer({ name: "Shop */ \`x\`", version: "1.0.0" }, { instructions: "*/ declare const leaked: number; /*" });
server.registerTool(
  "get-stock",
  {
    description: "Stock */ declare const injected: number; /* \`\${process.exit()}\`",
    inputSchema: { "sku */": z.string().describe("*/ declare const alsoInjected: string; /*") },
  },
  async () => ({ content: [{ type: "text", text: "7" }] }),
);
server.registerTool(
  "sales_report",
  { description: "Revenue for a period", inputSchema: { period: z.enum(["day", "week"]) }, outputSchema: { totalRevenue: z.number(), orders: z.number().int() } },
  async () => ({ content: [{ type: "text", text: "{}" }], structuredContent: { totalRevenue: 12.5, orders: 3 } }),
);
// A result type named like a global generic the declarations use.
server.registerTool(
  "wrap",
  { outputSchema: { items: z.array(z.string()) }, annotations: { "pmcp:outputTypeName": "Promise" } },
  async () => ({ content: [{ type: "text", text: "{}" }], structuredContent: { items: [] } }),
);
await server.connect(new StdioServerTransport());
`;

let dir: string;
let shopServer: string;
let bundle: Bundle;
let declarations: ClientDeclarations;
let checker: ProgramChecker;

beforeAll(async () => {
  dir = await outputDir("exec-type-check");
  shopServer = join(dir, "shop-server.mjs");
  await writeFile(shopServer, SHOP_SERVER);
  const config = join(dir, "mcp.json");
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        inventory: { command: process.execPath, args: [`${FIXTURES}typed-server.mjs`] },
        shop: { command: process.execPath, args: [shopServer] },
      },
    }),
  );
  const out = join(dir, "bundle.json");
  const exported = await runCli(["schema", "export", "--quiet", "--config", config, "-o", out]);
  expect(exported.stderr).toBe("");
  bundle = (await readSchemaFiles([out])).bundle;
  declarations = buildDeclarations(bundle);
  checker = createProgramChecker(declarations.text);
}, 120_000);

/** The JavaScript a sandbox runs for a program whose body emits as `body`: the whole emit, then the wrapper's call. */
function emitted(body: string): string {
  return `"use strict";\nasync function __program() {\n${body}}\n//# sourceMappingURL=program.js.map\nreturn __program();\n`;
}

/** Diagnostics as `line:col TScode message`, the way an agent reads them. */
function check(code: string, on: ProgramChecker = checker): string[] {
  return on
    .check(code)
    .diagnostics.map((diagnostic) => `${diagnostic.line}:${diagnostic.column} TS${diagnostic.code} ${diagnostic.message}`);
}

describe("declarations", () => {
  it("name each server's global, methods and tools as the generator does, with the signature inspect shows", () => {
    expect(
      declarations.servers.map((server) => ({
        ...server,
        tools: server.tools.map(({ toolName, method, signature }) => ({ toolName, method, signature })),
      })),
    ).toEqual([
      {
        serverId: "inventory",
        global: "inventory",
        tools: [
          { toolName: "get_stock", method: "getStock", signature: "inventory.getStock(args: GetStockArgs): Promise<StockLevel>" },
          { toolName: "ping", method: "ping", signature: "inventory.ping(args?: PingArgs): Promise<PingResult>" },
        ],
        parsers: [],
      },
      {
        serverId: "shop",
        global: "shop",
        tools: [
          { toolName: "get-stock", method: "getStock", signature: "shop.getStock(args: GetStockArgs): Promise<GetStockResult>" },
          {
            toolName: "sales_report",
            method: "salesReport",
            signature: "shop.salesReport(args: SalesReportArgs): Promise<SalesReportResult>",
          },
          { toolName: "wrap", method: "wrap", signature: "shop.wrap(args?: WrapArgs): Promise<Promise2>" },
        ],
        parsers: [],
      },
    ]);
    expect(declarations.servers[0]?.tools[0]?.types).toBe(
      [
        "type GetStockArgs = {",
        "  /** Stock keeping unit */",
        "  sku: string;",
        '  warehouse?: "north" | "south";',
        "};",
        "type StockLevel = {",
        "  sku: string;",
        "  quantity: number;",
        "  location: [number, number] | null;",
        "};",
      ].join("\n"),
    );
    expect(declarations.servers[0]?.tools[1]?.types).toBe("type PingArgs = { [key: string]: unknown };\ntype PingResult = rt.ToolResult;");
  });

  it(
    "compile on their own with tsc --strict, ES2022 only, and contain no `any`",
    async () => {
      const file = join(dir, "clients.d.ts");
      await writeFile(file, `/// <reference no-default-lib="true"/>\n/// <reference lib="es2022" />\n${declarations.text}`);
      expect(await typecheck(dir, [file], "bundler")).toBe("");
      // `any` in a type position; the word in comments is prose.
      expect(declarations.text).not.toMatch(/[:<|&,(]\s*any\b/);
    },
    COMPILE_BUDGET_MS,
  );

  it(
    "describe the runtime's shapes: a real ToolResult, ParsedResult and CompositionError fit the declared ones (compile-time proof)",
    async () => {
      const clients = join(dir, "proof-clients.d.ts");
      const proof = join(dir, "proof.ts");
      await writeFile(clients, declarations.text);
      await writeFile(
        proof,
        [
          'import type { CompositionError, ParsedResult, ToolResult } from "@pmcp-codegen/runtime";',
          "export function proof(",
          "  result: ToolResult,",
          "  error: CompositionError & { serverId: string; toolName: string },",
          "  parsed: ParsedResult<{ n: number }>,",
          "): [rt.ToolResult, rt.CallError, rt.ParsedResult<{ n: number }>] {",
          "  return [result, error, parsed];",
          "}",
        ].join("\n"),
      );
      expect(await typecheck(dir, [clients, proof], "nodenext")).toBe("");
    },
    COMPILE_BUDGET_MS,
  );

  it("keep server text as data: descriptions only inside comments, escaped", () => {
    expect(declarations.text).toContain("Stock *\\/ declare const injected: number; /* `${process.exit()}`");
    expect(check("return [injected, alsoInjected, leaked];")).toEqual([
      "1:9 TS2304 Cannot find name 'injected'. The globals are console, inventory, shop.",
      "1:19 TS2304 Cannot find name 'alsoInjected'. The globals are console, inventory, shop.",
      "1:33 TS2304 Cannot find name 'leaked'. The globals are console, inventory, shop.",
    ]);
    expect(check('const text = (await shop.getStock({ "sku */": "a" })).text;\nreturn text.length;')).toEqual([]);
  });
});

describe("checking a program", () => {
  it("accepts a correct program calling two servers, with top-level await and return", () => {
    const program = [
      'const stock = await inventory.getStock({ sku: "A-1", warehouse: "north" });',
      'const report = await shop.salesReport({ period: "week" });',
      "const pong = await inventory.ping();",
      'console.log("pong", pong.text);',
      "try {",
      '  await shop.getStock({ "sku */": "B-2" });',
      "} catch (e) {",
      "  const error = e as rt.CallError;",
      "  console.warn(error.code, error.serverId, error.toolName, error.name, error.message);",
      "}",
      "return { quantity: stock.quantity, revenue: report.totalRevenue, json: pong.json(), blocks: pong.content.length };",
    ].join("\n");
    expect(check(program)).toEqual([]);
  });

  it("refuses a field the result does not have, with a did-you-mean, at the agent's line and column", () => {
    expect(check('const data = await shop.salesReport({ period: "day" });\nreturn data.revenue;')).toEqual([
      "2:13 TS2339 Property 'revenue' does not exist on type 'SalesReportResult'. Did you mean 'totalRevenue'?",
    ]);
    expect(check('const data = await shop.salesReport({ period: "day" });\n\n  return data.totalRevenu + data.order;')).toEqual([
      "3:15 TS2551 Property 'totalRevenu' does not exist on type 'SalesReportResult'. Did you mean 'totalRevenue'?",
      "3:34 TS2551 Property 'order' does not exist on type 'SalesReportResult'. Did you mean 'orders'?",
    ]);
  });

  it("refuses a misspelled method, a misspelled argument key and a wrong argument type", () => {
    expect(check('await inventory.getStok({ sku: "a" });')).toEqual([
      "1:17 TS2551 Property 'getStok' does not exist on type 'InventoryClient'. Did you mean 'getStock'?",
    ]);
    expect(check('await inventory.getStock({ skuu: "a" });')).toEqual([
      "1:28 TS2561 Object literal may only specify known properties, but 'skuu' does not exist in type 'GetStockArgs'. Did you mean to write 'sku'?",
    ]);
    expect(check('await inventory.getStock({ sku: 7 });\nawait shop.salesReport({ period: "month" });')).toEqual([
      "1:28 TS2322 Type 'number' is not assignable to type 'string'.",
      `2:26 TS2322 Type '"month"' is not assignable to type '"day" | "week"'.`,
    ]);
  });

  it("has no Node.js or browser API and loads no module", () => {
    const modules = "is not available: a program loads no modules; call the servers through their globals (e.g. `server.tool(args)`).";
    expect(
      check(
        [
          "process.exit(1);",
          'const fs = require("fs");',
          'await fetch("https://example.com");',
          'import x from "y";',
          'const m = await import("node:fs");',
          "export const y = 1;",
          "setTimeout(() => {}, 1);",
        ].join("\n"),
      ),
    ).toEqual([
      "1:1 TS2591 Cannot find name 'process'. Programs run without Node.js or browser APIs.",
      `2:12 TS${PROGRAM_DIAGNOSTIC.MODULE_SYNTAX} 'require' ${modules}`,
      "3:7 TS2304 Cannot find name 'fetch'. The globals are console, inventory, shop.",
      `4:1 TS${PROGRAM_DIAGNOSTIC.MODULE_SYNTAX} 'import' ${modules}`,
      `5:17 TS${PROGRAM_DIAGNOSTIC.MODULE_SYNTAX} 'import()' ${modules}`,
      `6:1 TS${PROGRAM_DIAGNOSTIC.MODULE_SYNTAX} 'export' ${modules}`,
      "7:1 TS2304 Cannot find name 'setTimeout'. The globals are console, inventory, shop.",
    ]);
  });

  it("types a result without output schema as the content result: .text and .json() check, a field does not", () => {
    expect(check("const pong = await inventory.ping();\nconst text: string = pong.text;\nreturn [text, pong.json()];")).toEqual([]);
    expect(check("const pong = await inventory.ping();\nreturn pong.message;")).toEqual([
      "2:13 TS2339 Property 'message' does not exist on type 'ToolResult'.",
    ]);
  });

  it("refuses a program that closes its own function or breaks off, at a position in the agent's code", () => {
    expect(check("return 1;\n}\nglobalThis;\n{").map((line) => line.split(" ")[0])).toEqual(["2:1"]);
    expect(check("if (true) {\n  return 1;")).toEqual(["2:12 TS1005 '}' expected."]);
  });

  it("refuses a program larger than the limit with one diagnostic, unread", () => {
    const huge = `return ${JSON.stringify("x".repeat(MAX_PROGRAM_BYTES))};`;
    expect(checker.check(huge)).toEqual({
      diagnostics: [
        {
          line: 1,
          column: 1,
          code: PROGRAM_DIAGNOSTIC.TOO_LARGE,
          message: `The program is ${huge.length} bytes; at most ${MAX_PROGRAM_BYTES} are accepted.`,
        },
      ],
      omitted: 0,
    });
    expect(() => checker.transpile(huge)).toThrow(/at most 100000/);
  });

  // 33,000 diagnostics made 2.1 MB of [Type error] text.
  it("lists the first problems within MAX_DIAGNOSTICS and MAX_DIAGNOSTIC_BYTES, and counts the rest", () => {
    const many = checker.check("a;\n".repeat(33_000));
    expect(many.diagnostics).toHaveLength(MAX_DIAGNOSTICS);
    expect(many.diagnostics.map((diagnostic) => diagnostic.line)).toEqual(Array.from({ length: MAX_DIAGNOSTICS }, (_, i) => i + 1));
    expect(many.omitted).toBe(33_000 - MAX_DIAGNOSTICS);

    const name = "a".repeat(2_000);
    const message = `Cannot find name '${name}'. The globals are console, inventory, shop.`;
    const fit = Math.floor(MAX_DIAGNOSTIC_BYTES / Buffer.byteLength(message));
    const long = checker.check(`${name};\n`.repeat(40));
    expect(long.diagnostics.map((diagnostic) => diagnostic.message)).toEqual(Array.from({ length: fit }, () => message));
    expect(long.omitted).toBe(40 - fit);

    // A first message alone past the bytes is cut to them, between characters.
    const huge = checker.check(`${"é".repeat(20_000)};\nb;`);
    expect(huge.diagnostics).toHaveLength(1);
    expect(huge.omitted).toBe(1);
    const [cut] = huge.diagnostics.map((diagnostic) => diagnostic.message);
    expect(cut).toBe(`Cannot find name '${"é".repeat(Math.floor((MAX_DIAGNOSTIC_BYTES - 3 - "Cannot find name '".length) / 2))}…`);
  });

  /**
   * A second checker, for the cases that update its declarations, made once: a checker costs a
   * second of CPU. Either case leaves it as the other expects: a refused update changes nothing,
   * and a learned `ping` types nothing the refusal's program uses.
   */
  let updatable: ProgramChecker | undefined;
  const updatableChecker = () => (updatable ??= createProgramChecker(declarations.text));

  it("takes new declarations when a tool's type is learned, without a new checker", () => {
    const learned = updatableChecker();
    const program = "const pong = await inventory.ping();\nreturn pong.value.count + 1;";
    expect(check(program, learned)).toEqual(["2:13 TS2339 Property 'value' does not exist on type 'ToolResult'."]);
    const inferred: InferredTool = {
      tool: "ping",
      schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
      observations: 20,
      seen: 20,
      firstSeen: "2026-11-23T00:00:00.000Z",
      lastSeen: "2026-11-23T00:00:00.000Z",
      redacted: false,
      consistency: 1,
      quality: "high",
      fields: [],
    };
    const servers = bundle.servers.map((server) => (server.id === "inventory" ? { ...server, inferred: [inferred] } : server));
    learned.updateDeclarations(buildDeclarations({ ...bundle, servers }).text);
    expect(check(program, learned)).toEqual([]);
    // The result as it came stays: a program written before the type was learned still compiles.
    expect(check("const pong: rt.ToolResult = await inventory.ping();\nreturn pong.text;", learned)).toEqual([]);
    expect(check("const pong = await inventory.ping();\nreturn pong.value.text;", learned)).toEqual([
      "2:19 TS2339 Property 'text' does not exist on type 'PingResult'.",
    ]);
  });

  it("refuses declarations that do not compile, at creation and on update, keeping the last good ones", () => {
    const broken = `${declarations.text}\ndeclare const broken: Missing;`;
    expect(() => createProgramChecker(broken)).toThrow("the clients' declarations do not compile: Cannot find name 'Missing'. (TS2304)");
    const kept = updatableChecker();
    expect(() => kept.updateDeclarations("declare const broken: Missing;")).toThrow(/Cannot find name 'Missing'/);
    expect(check('const data = await shop.salesReport({ period: "day" });\nreturn data.orders;', kept)).toEqual([]);
  });
});

describe("transpiling a program", () => {
  let client: Client;
  beforeAll(async () => {
    client = new Client({ name: "exec-type-check-test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [`${FIXTURES}typed-server.mjs`] }));
  }, 60_000);
  afterAll(async () => {
    await client?.close();
  });

  it("erases the types and leaves a body that runs against the servers' globals", async () => {
    const program = [
      "interface Line { sku: string; quantity: number }",
      'const stock: StockOf = await inventory.getStock({ sku: "A-1" });',
      "type StockOf = inventory.StockLevel;",
      "const line: Line = { sku: stock.sku, quantity: stock.quantity as number };",
      "console.log(`got ${line.quantity}`);",
      "return line;",
    ].join("\n");
    expect(check(program)).toEqual([]);
    const body = checker.transpile(program).code;
    expect(body).not.toMatch(/interface|StockOf|: Line| as number/);
    // The globals the declarations promise, made from their own names; the sandbox's job in production.
    const server = declarations.servers.find((candidate) => candidate.global === "inventory")!;
    const inventory = Object.fromEntries(
      server.tools.map((tool) => [
        tool.method,
        async (args: Record<string, unknown>) => (await client.callTool({ name: tool.toolName, arguments: args })).structuredContent,
      ]),
    );
    const logs: string[] = [];
    const console = { log: (...parts: unknown[]) => logs.push(parts.join(" ")) };
    const AsyncFunction = (async () => {}).constructor as new (...names: string[]) => (...values: unknown[]) => Promise<unknown>;
    const result = await new AsyncFunction("inventory", "console", body)(inventory, console);
    expect(result).toEqual({ sku: "A-1", quantity: 7 });
    expect(logs).toEqual(["got 7"]);
  });

  it("refuses what the checker refuses", () => {
    expect(() => checker.transpile("}\nprocess;\n{")).toThrow(/Unbalanced/);
    expect(() => checker.transpile('import x from "y";')).toThrow(/'import' is not available/);
  });
});

describe("the checker's processes", () => {
  const union = Array.from({ length: 100 }, (_, i) => i).join(" | ");
  // A million tuples to instantiate: minutes of TypeScript and gigabytes, from a few lines.
  const TYPE_BOMB = `type N = ${union};\ntype Trip = { [A in N]: { [B in N]: { [C in N]: [A, B, C] }[N] }[N] }[N];\nreturn [1, 2, 3] as Trip;`;
  const X = "declare const x: number;";
  /** A program's time, arriving now. */
  const within = (limitMs: number) => ({ limitMs, arrived: performance.now() });

  // A session stopped while it started waited for both processes to warm up: seconds of CPU, more under load.
  it("ends the processes of a pool still starting once its signal aborts, and rejects", async () => {
    // Not the snapshot's builder, which a first start may also have begun.
    const checkers = () => childPids("checker-process.js");
    const before = checkers();
    const stopping = new AbortController();
    const created = CheckerHost.create(X, {}, stopping.signal);
    const starting = checkers().filter((pid) => !before.includes(pid));
    expect(starting).toHaveLength(2);
    stopping.abort();
    await expect(created).rejects.toThrow("the checker was closed while it started");
    expect(starting.filter(alive)).toEqual([]);
  });

  // One host for the cases of each set of options: each of its processes costs seconds of CPU to start.
  describe("one process, no check limit to speak of", () => {
    let host: CheckerHost;
    // 64 MB: a started checker keeps ~35 MB, and V8's last-resort collections near a larger limit took half a minute.
    beforeAll(async () => {
      host = await CheckerHost.create(X, { heapMb: 64, maxCheckMs: 120_000, processes: 1 });
    });
    afterAll(() => host?.close());

    it("stops a check that needs more than its heap, and checks the next program on a fresh process", async () => {
      expect(await host.check(TYPE_BOMB, X, within(120_000))).toEqual({
        ok: false,
        kind: "memory",
        message: "type-checking the program needed more than 64 MB; nothing was run",
      });
      expect(await host.check("return x + 1;", X, within(60_000))).toEqual({
        ok: true,
        program: expect.objectContaining({ code: emitted("    return x + 1;\n") }),
      });
      expect(await host.check("return x.foo;", X, within(60_000))).toEqual({
        ok: false,
        kind: "type_error",
        diagnostics: [{ line: 1, column: 10, code: 2339, message: "Property 'foo' does not exist on type 'number'." }],
        omitted: 0,
      });
    });

    // In a worker thread, a heap limit reached the wrong way aborted the whole process, the server with it.
    it("survives a checker process killed mid-check: that program is answered, the next checked in a fresh one", async () => {
      const [pid] = host.pids;
      const bomb = host.check(TYPE_BOMB, X, within(120_000));
      process.kill(pid!, "SIGKILL");
      expect(await bomb).toEqual({ ok: false, kind: "invalid_input", message: "the checker's process exited (SIGKILL)" });
      expect(await host.check("return x + 1;", X, within(60_000))).toEqual({
        ok: true,
        program: expect.objectContaining({ code: emitted("    return x + 1;\n") }),
      });
      expect(host.pids).not.toContain(pid);
    });
  });

  describe("one process, the default check limit", () => {
    let worker: CheckerHost;
    beforeAll(async () => {
      worker = await CheckerHost.create(X, { processes: 1 });
    });
    afterAll(() => worker?.close());

    // Ending the process at the limit cost 1-5 s of start-up, which the next plain program waited for.
    it("answers a program left less time than a check takes at once, on no process", async () => {
      const before = worker.pids;
      expect(await worker.check(TYPE_BOMB, X, within(1))).toEqual({
        ok: false,
        kind: "timeout",
        message: `the program's time limit of 1 ms left less than ${MIN_CHECK_MS} ms to type-check it; nothing was run`,
      });
      expect(await worker.check("return x + 1;", X, within(60_000))).toMatchObject({ ok: true });
      expect(worker.pids).toEqual(before);
    });

    it("stops a check at the program's time limit, and a check waiting behind it gets its turn", async () => {
      const order: string[] = [];
      const settled = <T>(name: string, pending: Promise<T>) => pending.finally(() => order.push(name));
      const [bomb, short, next] = await Promise.all([
        settled("bomb", worker.check(TYPE_BOMB, X, within(1_500))),
        // Its own limit runs while it waits: it ends before the check ahead of it.
        settled("short", worker.check("return x;", X, within(300))),
        settled("next", worker.check("return x;", X, within(60_000))),
      ]);
      // The bomb's answer waits for its process to be gone, and the next check runs on a new one meanwhile: either may settle first.
      expect([order[0], order.slice(1).sort()]).toEqual(["short", ["bomb", "next"]]);
      expect(short).toEqual({
        ok: false,
        kind: "timeout",
        message: "the program's time limit of 300 ms ran out while it waited for a free type-checker; nothing was run",
      });
      expect(bomb).toEqual({
        ok: false,
        kind: "timeout",
        message: "the program's time limit of 1500 ms ran out during its type-check; nothing was run",
      });
      expect(next).toEqual({ ok: true, program: expect.objectContaining({ code: emitted("    return x;\n") }) });
    });
  });

  it("stops a check at its own limit, counted from its start, not while it waited", async () => {
    // A caller counts as present for ten minutes: the queued check goes once the bomb's checker is
    // replaced by its standby, not when a caller's presence is next counted (which once took 30 s).
    const worker = await CheckerHost.create(X, { processes: 1, maxCheckMs: 1_000, callerPresentMs: 600_000 });
    try {
      const [bomb, queued] = await Promise.all([
        worker.check(TYPE_BOMB, X, within(60_000)),
        // Behind the bomb for a second and more: its check still has its whole second, and needs a few milliseconds.
        worker.check("return x;", X, within(60_000)),
      ]);
      expect(bomb).toEqual({ ok: false, kind: "timeout", message: "type-checking the program took longer than 1000 ms; nothing was run" });
      expect(queued).toEqual({ ok: true, program: expect.objectContaining({ code: emitted("    return x;\n") }) });
    } finally {
      await worker.close();
    }
  });

  // In this order: the declaration cases first, on the pool as created; the bomb's case replaces a process.
  describe("the default pool of two", () => {
    let worker: CheckerHost;
    beforeAll(async () => {
      worker = await CheckerHost.create(X, { maxCheckMs: 120_000 });
    });
    afterAll(() => worker?.close());

    it("refuses declarations that do not compile, and keeps the old ones when an update does not", async () => {
      await expect(CheckerHost.create("declare const x: Missing;")).rejects.toThrow(
        "the clients' declarations do not compile: Cannot find name 'Missing'. (TS2304)",
      );
      await expect(worker.updateDeclarations("declare const x: Missing;")).rejects.toThrow(/Cannot find name 'Missing'/);
      expect(await worker.check("return x + 1;", X, within(60_000))).toEqual({
        ok: true,
        program: expect.objectContaining({ code: emitted("    return x + 1;\n") }),
      });
      await worker.updateDeclarations("declare const x: string;");
      expect(await worker.check("return x.length;", "declare const x: string;", within(60_000))).toEqual({
        ok: true,
        program: expect.objectContaining({ code: emitted("    return x.length;\n") }),
      });
    });

    it("checks each program against the declarations it was given, whichever process holds which", async () => {
      const Y = "declare const x: string;";
      await worker.updateDeclarations(X);
      await worker.updateDeclarations(Y);
      const outcomes = await Promise.all(
        [X, Y, X, Y].map((declarations) => worker.check("const n: number = x;\nreturn n;", declarations, within(60_000))),
      );
      expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, false, true, false]);
    });

    // One checker for all: a bomb made the next clients' checks time out behind it. And a bomb's process
    // was replaced only once given up on: the next bomb took the other process while the fresh one started.
    it("checks other programs on another process while one checks a type bomb, starts a standby beside it, and replaces only the bomb's process", async () => {
      await worker.updateDeclarations(X);
      const before = worker.pids;
      expect(before).toHaveLength(2);
      let bombDone = false;
      const bomb = worker.check(TYPE_BOMB, X, within(4_000)).finally(() => {
        bombDone = true;
      });
      const others = await Promise.all(Array.from({ length: 5 }, (_, i) => worker.check(`return x + ${i};`, X, within(60_000))));
      expect(others.map((outcome) => outcome.ok)).toEqual([true, true, true, true, true]);
      expect(bombDone).toBe(false);
      const standing = await vi.waitFor(
        () => {
          const ids = worker.pids;
          if (ids.length < 3) throw new Error("no standby yet");
          return ids;
        },
        { timeout: 30_000, interval: 50 },
      );
      expect(standing.slice(0, 2)).toEqual(before);
      expect(await bomb).toEqual({
        ok: false,
        kind: "timeout",
        message: "the program's time limit of 4000 ms ran out during its type-check; nothing was run",
      });
      // Given up on: the bomb's process ends after its grace, the standby taking its place; none more is started.
      const after = await vi.waitFor(
        () => {
          const ids = worker.pids;
          if (ids.includes(before[0]!)) throw new Error("the bomb's process is still there");
          return ids;
        },
        { timeout: 30_000, interval: 50 },
      );
      expect(after).toEqual([before[1], standing[2]]);
    });

    // Two bombs from one caller took both processes: another caller's `return 1` waited for the first to be given up on.
    it("holds a caller to its share of the processes while another is present: the other's program is checked before its bombs end", async () => {
      await worker.check("return x;", X, within(60_000), "caller b");
      const order: string[] = [];
      const settled = <T>(name: string, pending: Promise<T>) => pending.finally(() => order.push(name));
      const [first, second, other] = await Promise.all([
        settled("bomb", worker.check(TYPE_BOMB, X, within(1_000), "caller a")),
        settled("bomb", worker.check(TYPE_BOMB, X, within(1_000), "caller a")),
        settled("other", worker.check("return x + 1;", X, within(60_000), "caller b")),
      ]);
      expect(order).toEqual(["other", "bomb", "bomb"]);
      expect(other).toEqual({ ok: true, program: expect.objectContaining({ code: emitted("    return x + 1;\n") }) });
      expect([first, second]).toEqual([
        { ok: false, kind: "timeout", message: "the program's time limit of 1000 ms ran out during its type-check; nothing was run" },
        {
          ok: false,
          kind: "timeout",
          message: "the program's time limit of 1000 ms ran out while it waited for a free type-checker; nothing was run",
        },
      ]);
    });
  });

  // A check given up on went on for a grace beside the other caller's programs, and the process started in
  // its place was free to the same caller's next bomb at once: bombs sent back to back with a short
  // timeout_ms kept a core and more from the other caller.
  it("ends a check given up on at once while another caller is present, and holds back that caller's next program as long as the check held its process", async () => {
    const worker = await CheckerHost.create(X);
    try {
      await worker.check("return x;", X, within(60_000), "caller b");
      const before = worker.pids;
      expect(await worker.check(TYPE_BOMB, X, within(500), "caller a")).toEqual({
        ok: false,
        kind: "timeout",
        message: "the program's time limit of 500 ms ran out during its type-check; nothing was run",
      });
      expect(before.filter((pid) => !worker.pids.includes(pid))).toHaveLength(1);
      const [next, other] = await Promise.all([
        worker.check("return x;", X, within(400), "caller a"),
        worker.check("return x + 1;", X, within(60_000), "caller b"),
      ]);
      expect(next).toEqual({
        ok: false,
        kind: "timeout",
        message: "the program's time limit of 400 ms ran out while it waited for a free type-checker; nothing was run",
      });
      expect(other).toEqual({ ok: true, program: expect.objectContaining({ code: emitted("    return x + 1;\n") }) });
    } finally {
      await worker.close();
    }
  });
});
