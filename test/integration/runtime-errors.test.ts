import { execFile } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { AbortError, ArgumentError, CompositionClient, InvalidResponseError, ToolCallError, TransportError } from "@pmcp-codegen/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { serveDyingServer } from "../fixtures/dying-http-server.mjs";
import { serveHttp } from "../helpers/http-server.js";

const execFileAsync = promisify(execFile);

/**
 * One client of the rpc-error fixture for the cases below: each counts the calls its server saw from its own
 * first one, so none depends on another, and one server process serves them all.
 */
let raw: CompositionClient | undefined;
function rawClient(): CompositionClient {
  const fixture = fileURLToPath(new URL("../fixtures/rpc-error-server.mjs", import.meta.url));
  raw ??= new CompositionClient({ servers: { raw: { command: process.execPath, args: [fixture] } }, timeoutMs: 30_000 });
  return raw;
}
afterAll(() => raw?.close());

describe("CompositionClient.fromConfigFile(): the file and the JSON path in every message", () => {
  it("reads a good file and calls its HTTP server", async () => {
    const server = () => {
      const mcp = new McpServer({ name: "echo", version: "1.0.0" });
      mcp.registerTool("echo", { inputSchema: { text: z.string() } }, ({ text }) => ({
        content: [{ type: "text", text: JSON.stringify({ text }) }],
      }));
      return mcp;
    };
    const fixture = await serveHttp(server, { transport: "streamable-http" });
    const file = join(await mkdtemp(join(tmpdir(), "pmcp-config-")), "mcp.json");
    await writeFile(file, JSON.stringify({ mcpServers: { echo: { url: fixture.url }, other: { url: "http://127.0.0.1:1/mcp" } } }));
    const client = await CompositionClient.fromConfigFile(file, { timeoutMs: 10_000 });
    try {
      const parse = z.object({ text: z.string() });
      expect(await client.callTool({ server: "echo", tool: "echo", args: { text: "hi" }, parse })).toEqual({ text: "hi" });
    } finally {
      await client.close();
      await fixture.close();
    }
  });
});

describe("a server's own JSON-RPC error is its answer, whatever its code", () => {
  it("-32000 and -32001 from the server are ToolCallErrors with the code: no retry, no reconnect, no timeout", async () => {
    const client = rawClient();
    const stats = z.object({ calls: z.number(), pid: z.number() });
    const before = await client.callTool({ server: "raw", tool: "stats", parse: stats, retryable: true });
    for (const [tool, code, message] of [
      ["lookup", -32000, "record not found"],
      ["slow", -32001, "upstream took too long"],
    ] as const) {
      const started = performance.now();
      const error = await client.callTool({ server: "raw", tool, parse: z.unknown(), retryable: true }).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(ToolCallError);
      expect((error as ToolCallError).rpcCode).toBe(code);
      expect((error as ToolCallError).message).toContain(message);
      // Answered at once, not after the 30 s timeout.
      expect(performance.now() - started).toBeLessThan(15_000);
    }
    // Each erring tool ran once (the read-only hint allowed a retry), on the same server process.
    const after = await client.callTool({ server: "raw", tool: "stats", parse: stats, retryable: true });
    expect(after).toEqual({ calls: before.calls + 3, pid: before.pid });
  });
});

describe("an answer whose result is not an object", () => {
  it("fails that call only, as an InvalidResponseError: no retry, and the connection stays", async () => {
    const client = rawClient();
    const stats = z.object({ calls: z.number(), pid: z.number() });
    const before = await client.callTool({ server: "raw", tool: "stats", parse: stats });
    for (const [tool, shown, raw] of [
      ["five", "5", 5],
      ["nothing", "null", null],
    ] as const) {
      const error = await client.callTool({ server: "raw", tool, parse: z.unknown(), retryable: true }).then(
        () => undefined,
        (reason: unknown) => reason as InvalidResponseError,
      );
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect([error?.message, error?.raw]).toEqual([`raw/${tool}: malformed tools/call result: expected an object, got ${shown}`, raw]);
    }
    expect(await client.callTool({ server: "raw", tool: "stats", parse: stats })).toEqual({ calls: before.calls + 3, pid: before.pid });
  });
});

describe("an AbortSignal ends the call at every stage, as an AbortError", () => {
  const failure = (pending: Promise<unknown>) =>
    pending.then(
      () => undefined,
      (reason: unknown) => reason as Error,
    );

  it("already aborted: nothing is spawned", async () => {
    // Spawning would have failed with a ConnectionError: the AbortError shows nothing was started.
    const client = new CompositionClient({ servers: { nowhere: { command: "no-such-server-binary" } } });
    const error = await failure(
      client.callTool({ server: "nowhere", tool: "t", parse: z.unknown() }, { signal: AbortSignal.abort(new Error("not wanted")) }),
    );
    expect(error).toBeInstanceOf(AbortError);
    expect(error?.message).toBe("nowhere/t: the call was aborted");
    expect((error?.cause as Error | undefined)?.message).toBe("not wanted");
  });

  it("while connecting to a server that never initializes, and on a live connection during a call", async () => {
    const silent = { command: process.execPath, args: ["-e", "setInterval(() => {}, 1000)"] };
    const fixture = fileURLToPath(new URL("../fixtures/behaviour-server.mjs", import.meta.url));
    const client = new CompositionClient({
      servers: { silent, behave: { command: process.execPath, args: [fixture] } },
      timeoutMs: 60_000,
    });
    try {
      const started = performance.now();
      const connecting = await failure(
        client.callTool({ server: "silent", tool: "t", parse: z.unknown() }, { signal: AbortSignal.timeout(200) }),
      );
      expect(connecting).toBeInstanceOf(AbortError);
      // Not the 60 s connect timeout.
      expect(performance.now() - started).toBeLessThan(30_000);
      const midCall = await failure(
        client.callTool({ server: "behave", tool: "slow", args: { ms: 20_000 }, parse: z.unknown() }, { signal: AbortSignal.timeout(500) }),
      );
      expect(midCall).toBeInstanceOf(AbortError);
      expect(midCall?.message).toBe("behave/slow: the call was aborted");
    } finally {
      await client.close();
    }
  });
});

describe("a stdio message over the SDK's read-buffer limit", () => {
  const fixture = fileURLToPath(new URL("../fixtures/large-message-server.mjs", import.meta.url));

  it("fails its call once, as an InvalidResponseError naming the limit; maxMessageBytes raises it", async () => {
    const calls = join(await mkdtemp(join(tmpdir(), "pmcp-large-")), "calls.txt");
    const server = { command: process.execPath, args: [fixture, "--calls-file", calls] };
    const text = z.object({ text: z.string() });
    const client = new CompositionClient({ servers: { large: server }, timeoutMs: 60_000 });
    try {
      const error = await client.callTool({ server: "large", tool: "big", args: { mb: 11 }, parse: text, retryable: true }).then(
        () => undefined,
        (reason: unknown) => reason as Error,
      );
      expect(error).toBeInstanceOf(InvalidResponseError);
      expect(error?.message).toBe(
        "large/big: the server wrote a message over the stdio limit of 10485760 bytes (10.0 MiB); raise it with maxMessageBytes (CLI: --max-message-bytes)",
      );
      // The next call reconnects.
      expect(await client.callTool({ server: "large", tool: "stats", parse: z.object({ calls: z.number() }) })).toEqual({ calls: 1 });
    } finally {
      await client.close();
    }
    // The read-only tool ran once: its answer had arrived.
    expect(await readFile(calls, "utf8")).toBe("big\nstats\n");
    const roomy = new CompositionClient({ servers: { large: server }, maxMessageBytes: 12 * 2 ** 20, timeoutMs: 60_000 });
    try {
      const value = await roomy.callTool({ server: "large", tool: "big", args: { mb: 11 }, parse: text });
      expect(value.text.length).toBe(11 * 2 ** 20);
    } finally {
      await roomy.close();
    }
  }, 120_000);
});

describe("an HTTP server whose stream breaks mid-call", () => {
  it("is a TransportError, not a timeout; a read-only tool is retried on a new connection", async () => {
    const fixture = await serveDyingServer();
    // A timeout far past the test's own: a TimeoutError could only come after the test failed.
    const client = new CompositionClient({ servers: { dying: { url: fixture.url } }, timeoutMs: 600_000 });
    try {
      const counted = z.object({ calls: z.number() });
      expect(await client.callTool({ server: "dying", tool: "flaky", parse: counted, retryable: true })).toEqual({ calls: 2 });
      const error = await client.callTool({ server: "dying", tool: "doomed", parse: counted }).then(
        () => undefined,
        (reason: unknown) => reason as Error,
      );
      expect(error).toBeInstanceOf(TransportError);
      expect(error?.message).toMatch(/^dying\/doomed: the connection closed during the call$/);
      expect(fixture.calls).toEqual(["flaky", "flaky", "doomed"]);
    } finally {
      await client.close();
      await fixture.close();
    }
  });

  it.each(["streamable-http", "sse"] as const)("over %s, a server that goes away mid-call is a TransportError", async (transport) => {
    let started: () => void = () => {};
    const calling = new Promise<void>((resolve) => {
      started = resolve;
    });
    const server = () => {
      const mcp = new McpServer({ name: "hang", version: "1.0.0" });
      mcp.registerTool("hang", {}, () => {
        started();
        return new Promise<never>(() => {});
      });
      return mcp;
    };
    const fixture = await serveHttp(server, { transport });
    const client = new CompositionClient({ servers: { gone: { url: fixture.url, transport } }, timeoutMs: 600_000 });
    try {
      const pending = client.callTool({ server: "gone", tool: "hang", parse: z.unknown() }).then(
        () => undefined,
        (reason: unknown) => reason as Error,
      );
      await calling;
      await fixture.close();
      const error = await pending;
      expect(error).toBeInstanceOf(TransportError);
    } finally {
      await client.close();
    }
  });
});

describe("a tool that runs as a task", () => {
  it.each([
    ["a timeout", () => ({ timeoutMs: 600 }), "TimeoutError"],
    ["an abort", () => ({ signal: AbortSignal.timeout(400) }), "AbortError"],
  ] as const)("cancels the task on %s: tasks/cancel reaches the server, and polling stops", async (_name, options, error) => {
    const log = join(await mkdtemp(join(tmpdir(), "pmcp-task-")), "requests.log");
    const fixture = fileURLToPath(new URL("../fixtures/task-server.mjs", import.meta.url));
    const client = new CompositionClient({ servers: { tasks: { command: process.execPath, args: [fixture], env: { LOG: log } } } });
    try {
      const failure = await client.callToolForResult({ server: "tasks", tool: "slow", task: true, protocol: "2025-11-25" }, options()).then(
        () => undefined,
        (reason: Error) => reason,
      );
      expect(failure?.name).toBe(error);
      // Polls are counted below. An abort that lands before the server's answer to tools/call also cancels that
      // request (notifications/cancelled), before the task's cancel: the machine's speed decides which it meets.
      const seen = async () =>
        (await readFile(log, "utf8"))
          .split("\n")
          .filter((line) => line !== "" && line !== "tasks/get t1" && line !== "notifications/cancelled");
      for (const end = Date.now() + 10_000; !(await seen()).includes("tasks/cancel t1") && Date.now() < end; )
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await seen()).toEqual(["initialize", "notifications/initialized", "tools/call", "tasks/cancel t1"]);
      // Nothing polls after the cancel.
      const polls = (await readFile(log, "utf8")).split("\n").filter((line) => line === "tasks/get t1").length;
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect((await readFile(log, "utf8")).split("\n").filter((line) => line === "tasks/get t1").length).toBe(polls);
    } finally {
      await client.close();
    }
  });
});

describe("arguments that are not JSON", () => {
  it("a number that is not finite, a BigInt or a cycle is an ArgumentError before anything is sent; the connection stays", async () => {
    const client = rawClient();
    const stats = z.object({ calls: z.number(), pid: z.number() });
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    const before = await client.callTool({ server: "raw", tool: "stats", parse: stats });
    for (const [args, message] of [
      // JSON.stringify writes these as null: the server would get a value the caller did not give.
      [
        { xs: [1, Number.POSITIVE_INFINITY], n: 1 },
        "raw/stats: the arguments cannot be sent as JSON: /xs/1: Infinity is not a number JSON can carry",
      ],
      [{ "a/b": { n: Number.NaN } }, "raw/stats: the arguments cannot be sent as JSON: /a~1b/n: NaN is not a number JSON can carry"],
      [{ at: { toJSON: () => -1 / 0 } }, "raw/stats: the arguments cannot be sent as JSON: /at: -Infinity is not a number JSON can carry"],
      [{ n: 1n }, "raw/stats: the arguments cannot be sent as JSON: /n: a BigInt is not a number JSON can carry"],
      [cyclic, /^raw\/stats: the arguments cannot be sent as JSON: Converting circular structure to JSON/],
    ] as const) {
      const error = await client.callTool({ server: "raw", tool: "stats", args, parse: stats, retryable: true }).then(
        () => undefined,
        (reason: unknown) => reason as Error,
      );
      expect(error).toBeInstanceOf(ArgumentError);
      expect([(error as ArgumentError).code, error?.message]).toEqual([
        "INVALID_ARGUMENTS",
        typeof message === "string" ? message : expect.stringMatching(message),
      ]);
    }
    expect(await client.callTool({ server: "raw", tool: "stats", parse: stats })).toEqual({ calls: before.calls + 1, pid: before.pid });
  });
});

describe("1,000 concurrent calls", () => {
  it.each([
    ["without a signal", []],
    ["sharing one AbortSignal", ["--signal"]],
  ])(
    "%s print no warning (MaxListenersExceededWarning)",
    async (_name, flags) => {
      const script = fileURLToPath(new URL("../fixtures/concurrent-calls.mjs", import.meta.url));
      const { stdout, stderr } = await execFileAsync(process.execPath, [script, "1000", ...flags], { timeout: 120_000 });
      // One server process answered all of them.
      expect([stdout, stderr]).toEqual(["1 1000\n", ""]);
    },
    120_000,
  );
});

describe("1,600 sequential calls over one Streamable HTTP session", () => {
  it("print no warning: the session's AbortSignal does not collect a listener per request", async () => {
    const script = fileURLToPath(new URL("../fixtures/sequential-http-calls.mjs", import.meta.url));
    // A young generation big enough that no garbage collection removes fetch's listeners during the run.
    const { stdout, stderr } = await execFileAsync(
      process.execPath,
      ["--min-semi-space-size=256", "--max-semi-space-size=256", script, "1600"],
      { timeout: 120_000 },
    );
    expect([stdout, stderr]).toEqual([`${1600 * 7}\n`, ""]);
  }, 120_000);
});
