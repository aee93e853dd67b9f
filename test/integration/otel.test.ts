import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/server";
import { context, createTraceState, metrics, SpanKind, SpanStatusCode, TraceFlags, trace } from "@opentelemetry/api";
import { type HistogramMetricData, MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, NodeTracerProvider, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-node";
import { CompositionClient, type ServerEntry } from "@pmcp-codegen/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type StartedSession, startSession } from "../../dist/commands/start-exec-session.js";
import { createExecServer } from "../../dist/exec/exec-server.js";
import { FIXTURES } from "../helpers/cli.js";

// The agent's side, instrumented as a user would: every span in memory, metrics read on demand.
const exporter = new InMemorySpanExporter();
new NodeTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }).register();
class ManualReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}
const reader = new ManualReader();
metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));

const FIXTURE = join(FIXTURES, "otel-server.mjs");
const Stock = z.object({ sku: z.string(), quantity: z.number() });
const TOOL_CALL = { "mcp.method.name": "tools/call", "gen_ai.operation.name": "execute_tool" };

/** A span as the fixture servers write it. */
interface FileSpan {
  name: string;
  kind: SpanKind;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  attributes: Record<string, unknown>;
  status: { code: SpanStatusCode; message?: string };
}

let dir: string;
const clients: CompositionClient[] = [];
const processes: ChildProcess[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-otel-"));
});

afterAll(async () => {
  await Promise.all(clients.map((client) => client.close()));
  for (const child of processes) child.kill();
  await rm(dir, { recursive: true, force: true });
});

function client(servers: Record<string, ServerEntry>, options: { timeoutMs?: number } = {}): CompositionClient {
  const created = new CompositionClient({ servers, ...options });
  clients.push(created);
  return created;
}

function upstream(spansFile: string, env: Record<string, string> = {}): ServerEntry {
  return { command: process.execPath, args: [FIXTURE], env: { OTEL_SPANS_FILE: spansFile, ...env } };
}

async function fileSpans(file: string): Promise<FileSpan[]> {
  const text = await readFile(file, "utf8");
  return text
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as FileSpan);
}

/**
 * The spans in `file` once it holds `count` of them: a server's span reaches its file by its
 * span processor, which need not have run when the answer arrives here.
 */
async function exportedSpans(file: string, count: number): Promise<FileSpan[]> {
  for (;;) {
    const spans = await fileSpans(file).catch(() => []);
    if (spans.length >= count) return spans;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The spans this process finished for `name`, oldest first. */
function mySpans(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name);
}

function only<T>(items: readonly T[]): T {
  expect(items).toHaveLength(1);
  return items[0] as T;
}

async function histogram(name: string): Promise<HistogramMetricData> {
  const { resourceMetrics } = await reader.collect();
  const found = resourceMetrics.scopeMetrics
    .filter((scope) => scope.scope.name === "pmcp-codegen")
    .flatMap((scope) => scope.metrics)
    .find((metric) => metric.descriptor.name === name);
  if (found === undefined) throw new Error(`no metric ${name}`);
  return found as HistogramMetricData;
}

describe("client spans", () => {
  it("one trace across three processes over stdio: agent CLIENT → domain SERVER → domain CLIENT → upstream SERVER", async () => {
    const domainFile = join(dir, "domain.jsonl");
    const upstreamFile = join(dir, "domain-upstream.jsonl");
    const agent = client({
      domain: {
        command: process.execPath,
        args: [FIXTURE],
        env: { OTEL_ROLE: "domain", OTEL_SPANS_FILE: domainFile, UPSTREAM_SPANS_FILE: upstreamFile },
      },
    });
    const value = await agent.callTool({
      server: "domain",
      tool: "stock_report",
      args: { sku: "A1" },
      parse: z.object({ line: z.string() }),
    });
    expect(value).toEqual({ line: "A1: 7" });

    const mine = only(mySpans("tools/call stock_report"));
    expect(mine.kind).toBe(SpanKind.CLIENT);
    expect(mine.status.code).toBe(SpanStatusCode.UNSET);
    expect(mine.attributes).toEqual({
      ...TOOL_CALL,
      "gen_ai.tool.name": "stock_report",
      "network.transport": "pipe",
      // The fixture speaks 2026-07-28: no initialize took an id (the probe's id is its own).
      "mcp.protocol.version": "2026-07-28",
      "jsonrpc.request.id": "0",
    });
    expect(mine.events.map((event) => event.name)).toEqual(["connect"]);

    const domain = await exportedSpans(domainFile, 2);
    expect(domain.map((span) => [span.name, span.kind])).toEqual([
      ["tools/call get_stock", SpanKind.CLIENT],
      ["tools/call stock_report", SpanKind.SERVER],
    ]);
    const [domainClient, domainServer] = domain as [FileSpan, FileSpan];
    const upstreamServer = only(await exportedSpans(upstreamFile, 1));
    expect([upstreamServer.name, upstreamServer.kind]).toEqual(["tools/call get_stock", SpanKind.SERVER]);

    const traceId = mine.spanContext().traceId;
    expect([domainServer.traceId, domainClient.traceId, upstreamServer.traceId]).toEqual([traceId, traceId, traceId]);
    expect(domainServer.parentSpanId).toBe(mine.spanContext().spanId);
    expect(domainClient.parentSpanId).toBe(domainServer.spanId);
    expect(upstreamServer.parentSpanId).toBe(domainClient.spanId);

    // A modern request names its version in its envelope, over stdio too.
    expect(domainServer.attributes).toEqual({
      ...TOOL_CALL,
      "gen_ai.tool.name": "stock_report",
      "network.transport": "pipe",
      "mcp.protocol.version": "2026-07-28",
      "jsonrpc.request.id": "0",
    });
    expect(upstreamServer.attributes).toEqual({
      ...TOOL_CALL,
      "gen_ai.tool.name": "get_stock",
      "network.transport": "pipe",
      "mcp.protocol.version": "2026-07-28",
      "jsonrpc.request.id": "0",
    });
  });

  it("the trace context travels in params._meta (traceparent), never in the arguments", async () => {
    const agent = client({ echo: { command: process.execPath, args: [join(FIXTURES, "otel-echo.mjs")] } });
    const result = await agent.callToolForResult({ server: "echo", tool: "echo", args: { sku: "A1" } });
    const { traceId, spanId } = only(mySpans("tools/call echo")).spanContext();
    expect(result.text).toBe(`{"name":"echo","arguments":{"sku":"A1"},"_meta":{"traceparent":"00-${traceId}-${spanId}-01"}}`);
  });

  it("a tracestate of the caller's trace travels with the traceparent", async () => {
    const agent = client({ echo: { command: process.execPath, args: [join(FIXTURES, "otel-echo.mjs")] } });
    const parent = trace.setSpanContext(context.active(), {
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      spanId: "00f067aa0ba902b7",
      traceFlags: TraceFlags.SAMPLED,
      traceState: createTraceState("rojo=00f067aa0ba902b7"),
      isRemote: true,
    });
    const result = await context.with(parent, () => agent.callToolForResult({ server: "echo", tool: "echo", args: {} }));
    const { spanId } = only(
      mySpans("tools/call echo").filter((span) => span.parentSpanContext?.spanId === "00f067aa0ba902b7"),
    ).spanContext();
    expect(JSON.parse(result.text)).toEqual({
      name: "echo",
      arguments: {},
      _meta: { traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-${spanId}-01`, tracestate: "rojo=00f067aa0ba902b7" },
    });
  });

  it("over HTTP: server address and port, the session id on both sides, and the duration histogram in seconds", async () => {
    const spansFile = join(dir, "http.jsonl");
    const child = spawn(process.execPath, [FIXTURE], {
      env: { ...process.env, OTEL_TRANSPORT: "http", OTEL_SPANS_FILE: spansFile },
      stdio: ["ignore", "pipe", "inherit"],
    });
    processes.push(child);
    const [chunk] = (await once(child.stdout, "data")) as [Buffer];
    const url = new URL(chunk.toString("utf8").trim());
    const port = Number(url.port);

    const agent = client({ stock: { url: url.href } });
    expect(await agent.callTool({ server: "stock", tool: "get_stock", args: { sku: "B2", sleep_ms: 200 }, parse: Stock })).toEqual({
      sku: "B2",
      quantity: 7,
    });

    const mine = only(mySpans("tools/call get_stock").filter((span) => span.attributes["server.port"] === port));
    const sessionId = mine.attributes["mcp.session.id"];
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const metric = {
      ...TOOL_CALL,
      "gen_ai.tool.name": "get_stock",
      "network.transport": "tcp",
      "mcp.protocol.version": LATEST_PROTOCOL_VERSION,
      "server.address": "127.0.0.1",
      "server.port": port,
    };
    expect(mine.attributes).toEqual({ ...metric, "mcp.session.id": sessionId, "jsonrpc.request.id": "1" });

    const served = only(await exportedSpans(spansFile, 1));
    expect([served.name, served.kind, served.traceId, served.parentSpanId]).toEqual([
      "tools/call get_stock",
      SpanKind.SERVER,
      mine.spanContext().traceId,
      mine.spanContext().spanId,
    ]);
    expect(served.attributes).toEqual({
      ...TOOL_CALL,
      "gen_ai.tool.name": "get_stock",
      "network.transport": "tcp",
      "mcp.protocol.version": LATEST_PROTOCOL_VERSION,
      "mcp.session.id": sessionId,
      "jsonrpc.request.id": "1",
    });

    const durations = await histogram("mcp.client.operation.duration");
    expect(durations.descriptor.unit).toBe("s");
    const point = only(durations.dataPoints.filter((candidate) => candidate.attributes["server.port"] === port));
    expect(point.attributes).toEqual(metric);
    expect(point.value.count).toBe(1);
    // The tool sleeps 200 ms: seconds, not milliseconds.
    expect(point.value.sum).toBeGreaterThanOrEqual(0.2);
    expect(point.value.sum).toBeLessThan(5);
    expect(point.value.buckets.boundaries).toEqual([0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]);
  });

  it("failures: error.type and ERROR status on the client span, the histogram and the server span", async () => {
    const spansFile = join(dir, "errors.jsonl");
    const agent = client({
      errors: upstream(spansFile),
      rpc: { command: process.execPath, args: [join(FIXTURES, "rpc-error-server.mjs")] },
    });
    const failure = (call: Promise<unknown>) =>
      call.then(
        () => expect.unreachable(),
        (error: Error) => error,
      );

    const toolError = await failure(agent.callTool({ server: "errors", tool: "fail", args: {}, parse: Stock }));
    const rpcError = await failure(agent.callTool({ server: "rpc", tool: "lookup", args: {}, parse: Stock }));
    const invalid = await failure(
      agent.callTool({ server: "errors", tool: "get_stock", args: { sku: "C3" }, parse: z.object({ sku: z.number() }) }),
    );
    const timeout = await failure(
      // Only this call is short of time: connecting a server that loads the OTel SDK takes longer on a loaded machine.
      agent.callTool({ server: "errors", tool: "get_stock", args: { sku: "C3", sleep_ms: 30_000 }, parse: Stock }, { timeoutMs: 1500 }),
    );
    // Arguments the tool's input schema refuses: answered inside the tool's span, as a tool error.
    const badInput = await failure(agent.callTool({ server: "errors", tool: "get_stock", args: { sku: 5 }, parse: Stock }));
    expect([toolError, rpcError, invalid, timeout, badInput].map((error) => error.name)).toEqual([
      "ToolCallError",
      "ToolCallError",
      "OutputValidationError",
      "TimeoutError",
      "ToolCallError",
    ]);
    expect(badInput.message).toBe(
      "errors/get_stock: Input validation error: Invalid arguments for tool get_stock at sku: Invalid input: expected string, received number",
    );

    const failed = exporter
      .getFinishedSpans()
      .filter((span) => span.status.code === SpanStatusCode.ERROR && span.kind === SpanKind.CLIENT)
      .map((span) => [span.name, span.attributes["error.type"], span.attributes["rpc.response.status_code"], span.status.message]);
    expect(failed).toEqual([
      ["tools/call fail", "tool_error", undefined, toolError.message],
      ["tools/call lookup", "-32000", "-32000", rpcError.message],
      ["tools/call get_stock", "OUTPUT_VALIDATION", undefined, invalid.message],
      ["tools/call get_stock", "TIMEOUT", undefined, timeout.message],
      ["tools/call get_stock", "tool_error", undefined, badInput.message],
    ]);

    const durations = await histogram("mcp.client.operation.duration");
    const points = durations.dataPoints
      .filter((point) => point.attributes["error.type"] !== undefined)
      .map((point) => [point.attributes["gen_ai.tool.name"], point.attributes["error.type"], point.value.count]);
    expect(points).toEqual([
      ["fail", "tool_error", 1],
      ["lookup", "-32000", 1],
      ["get_stock", "OUTPUT_VALIDATION", 1],
      ["get_stock", "TIMEOUT", 1],
      ["get_stock", "tool_error", 1],
    ]);

    // The server's side of the same calls (the timed-out one is still sleeping there).
    const served = (await exportedSpans(spansFile, 3)).map((span) => [span.name, span.attributes["error.type"], span.status]);
    expect(served).toEqual([
      ["tools/call fail", "tool_error", { code: SpanStatusCode.ERROR, message: "out of stock" }],
      ["tools/call get_stock", undefined, { code: SpanStatusCode.UNSET }],
      ["tools/call get_stock", "tool_error", { code: SpanStatusCode.ERROR, message: badInput.message.replace("errors/get_stock: ", "") }],
    ]);
  });

  it("a retry after the server died shows as events: connect, retry, connect (the reconnect)", async () => {
    const agent = client({ crashing: upstream(join(dir, "crash.jsonl"), { CRASH_MARKER: join(dir, "crashed") }) }, { timeoutMs: 20_000 });
    expect(await agent.callTool({ server: "crashing", tool: "crash", args: {}, parse: Stock, retryable: true })).toEqual({
      sku: "after-crash",
      quantity: 1,
    });
    const span = only(mySpans("tools/call crash"));
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    expect(span.events.map((event) => [event.name, event.attributes])).toEqual([
      ["connect", { "pmcp.server.id": "crashing" }],
      ["retry", { "pmcp.retry.attempt": 2, "error.type": "TRANSPORT" }],
      ["connect", { "pmcp.server.id": "crashing" }],
    ]);
  });
});

describe("execute_program", () => {
  let started: StartedSession;
  let agent: Client;
  let upstreamFile: string;

  beforeAll(async () => {
    upstreamFile = join(dir, "exec-upstream.jsonl");
    const config = join(dir, "exec.json");
    await writeFile(config, JSON.stringify({ mcpServers: { inventory: upstream(upstreamFile) } }));
    started = await startSession(
      {
        endpoint: [],
        stdio: [],
        config,
        server: [],
        id: undefined,
        header: [],
        maxMessageBytes: undefined,
        protocol: undefined,
        schema: [],
        maxTimeMs: undefined,
        maxHeapMb: undefined,
        maxPrograms: undefined,
        maxCalls: undefined,
        maxConcurrentCalls: undefined,
        maxOutputBytes: undefined,
        observe: undefined,
        minQuality: "high",
        learn: false,
      },
      "serve exec",
      // One checker process: these programs come one at a time, and a second costs seconds of CPU to start.
      { processes: 1 },
    );
    // The spans of programs are the subject here, not a program waiting for the start.
    await started.session.ready();
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createExecServer(started.session).connect(serverSide);
    agent = new Client({ name: "otel-test", version: "1.0.0" });
    await agent.connect(clientSide);
  });

  afterAll(async () => {
    await agent?.close();
    await started?.close();
  });

  const limits = {
    "pmcp.program.timeout_ms": 30_000,
    "pmcp.program.heap_bytes": 64 * 1024 * 1024,
    "pmcp.program.max_calls": 200,
    "pmcp.program.max_concurrent_calls": 16,
    "pmcp.program.max_output_bytes": 64 * 1024,
  };

  it("one span per program under the execute_program server span, with the limits, the outcome and its calls as children", async () => {
    const code =
      'const a = await inventory.getStock({ sku: "D4" }); const b = await inventory.getStock({ sku: "E5" }); return a.quantity + b.quantity;';
    const result = await agent.callTool({ name: "execute_program", arguments: { code } });
    expect(result.structuredContent).toMatchObject({ result: 14 });

    const server = only(mySpans("tools/call execute_program").filter((span) => span.status.code === SpanStatusCode.UNSET));
    expect(server.kind).toBe(SpanKind.SERVER);
    const program = only(mySpans("execute_program").filter((span) => span.parentSpanContext?.spanId === server.spanContext().spanId));
    expect(program.kind).toBe(SpanKind.INTERNAL);
    expect(program.attributes).toEqual({ ...limits, "pmcp.program.outcome": "ok", "pmcp.program.calls": 2 });
    const calls = mySpans("tools/call get_stock").filter((span) => span.parentSpanContext?.spanId === program.spanContext().spanId);
    expect(calls.map((span) => [span.kind, span.spanContext().traceId])).toEqual([
      [SpanKind.CLIENT, server.spanContext().traceId],
      [SpanKind.CLIENT, server.spanContext().traceId],
    ]);
    // And the upstream server continues the same trace under each call.
    const served = await fileSpans(upstreamFile);
    expect(served.map((span) => [span.traceId, span.parentSpanId])).toEqual(
      calls.map((span) => [span.spanContext().traceId, span.spanContext().spanId]),
    );
  });

  it("a program refused by the type-check still has its span, with the outcome and no calls; the server span is a tool_error", async () => {
    const result = await agent.callTool({ name: "execute_program", arguments: { code: "return missingName;", timeout_ms: 5000 } });
    expect(result.isError).toBe(true);
    const server = only(mySpans("tools/call execute_program").filter((span) => span.status.code === SpanStatusCode.ERROR));
    expect(server.attributes["error.type"]).toBe("tool_error");
    const program = only(mySpans("execute_program").filter((span) => span.parentSpanContext?.spanId === server.spanContext().spanId));
    expect(program.attributes).toEqual({
      ...limits,
      "pmcp.program.timeout_ms": 5000,
      "pmcp.program.outcome": "type_error",
      "pmcp.program.calls": 0,
      "error.type": "type_error",
    });
    expect(program.status).toEqual({ code: SpanStatusCode.ERROR, message: "1 problem; nothing was run" });

    const durations = await histogram("mcp.server.operation.duration");
    const points = durations.dataPoints
      .filter((point) => point.attributes["gen_ai.tool.name"] === "execute_program")
      .map((point) => [point.attributes, point.value.count]);
    const connection = { "mcp.protocol.version": LATEST_PROTOCOL_VERSION };
    expect(points).toEqual([
      [{ ...TOOL_CALL, ...connection, "gen_ai.tool.name": "execute_program" }, 1],
      [{ ...TOOL_CALL, ...connection, "gen_ai.tool.name": "execute_program", "error.type": "tool_error" }, 1],
    ]);
  });
});
