/**
 * OpenTelemetry for tool calls, by the semantic conventions for MCP (semantic-conventions-genai,
 * docs/gen-ai/mcp.md, development status). Only the API, an optional peer dependency: whoever
 * registers an SDK has it installed, and a runtime installed alone stays small. Without it, or with
 * no SDK registered, every span is a non-recording one and the histograms are no-ops, so a call
 * pays for next to nothing.
 */

import type { Attributes, Context, Histogram, Link, MeterProvider, Span, TextMapGetter } from "@opentelemetry/api";
import { CompositionError, ToolCallError } from "./errors.js";

/** The OpenTelemetry API, when installed; undefined otherwise. */
const api = await import("@opentelemetry/api").catch(() => undefined);

export const INSTRUMENTATION = { name: "pmcp-codegen", version: "0.1.0" } as const;

/** The tracer of the runtime; a proxy, so an SDK registered later is used. */
const tracer = api?.trace.getTracer(INSTRUMENTATION.name, INSTRUMENTATION.version);

/** The trace id of a span that records nothing (the API's `INVALID_TRACEID`). */
const INVALID_TRACEID = "00000000000000000000000000000000";

/** What a span is when the API is not installed: records nothing, passes no context on. */
const NOT_RECORDING = {
  isRecording: () => false,
  spanContext: () => ({ traceId: INVALID_TRACEID, spanId: "0000000000000000", traceFlags: 0 }),
  setAttributes() {
    return this;
  },
  setAttribute() {
    return this;
  },
  addEvent() {
    return this;
  },
  setStatus() {
    return this;
  },
  end: () => {},
} as unknown as Span;

const TOOLS_CALL = "tools/call";
/** The conventions' advice for both duration histograms, in seconds. */
const BUCKETS = [0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300];

interface Durations {
  client: Histogram;
  server: Histogram;
}
/** The histograms of the last meter provider seen, undefined for the API's no-op one. */
let durations: { provider: MeterProvider; histograms: Durations | undefined } | undefined;
/** What the API's meter is when no SDK is registered. */
const NoopMeter = api?.createNoopMeter().constructor;

/** The histograms of the meter provider registered now: unlike the tracer, the API's meter is no proxy. */
function histograms(): Durations | undefined {
  if (api === undefined) return undefined;
  const provider = api.metrics.getMeterProvider();
  if (durations?.provider === provider) return durations.histograms;
  const meter = provider.getMeter(INSTRUMENTATION.name, INSTRUMENTATION.version);
  const histogram = (name: string, description: string) =>
    meter.createHistogram(name, { unit: "s", description, valueType: api.ValueType.DOUBLE, advice: { explicitBucketBoundaries: BUCKETS } });
  durations = {
    provider,
    histograms:
      NoopMeter !== undefined && meter instanceof NoopMeter
        ? undefined
        : {
            client: histogram("mcp.client.operation.duration", "The duration of the MCP request as observed on the sender"),
            server: histogram("mcp.server.operation.duration", "The duration of the MCP request as observed on the receiver"),
          },
  };
  return durations.histograms;
}

/** What a call's connection tells about it; `server` for HTTP only. */
export interface ConnectionFacts {
  transport: "pipe" | "tcp" | undefined;
  protocolVersion: string | undefined;
  sessionId: string | undefined;
  server?: { address: string; port: number } | undefined;
}

/** How a traced call ended: nothing for success, else the conventions' `error.type` and the message for the status. */
export interface Failure {
  type: string;
  message: string;
  /** The JSON-RPC error code of the answer, when it was one. */
  rpcCode?: number | undefined;
}

/**
 * `error.type` of a failed call: the JSON-RPC error code when the server answered with one,
 * `tool_error` for an `isError` result, else the CompositionError's code.
 */
export function failureOf(error: unknown): Failure {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof ToolCallError)
    return error.rpcCode === undefined ? { type: "tool_error", message } : { type: String(error.rpcCode), message, rpcCode: error.rpcCode };
  if (error instanceof CompositionError) return { type: error.code, message };
  return { type: "_OTHER", message };
}

/**
 * One tools/call as a span (CLIENT or SERVER) plus its duration in the histogram, ended once.
 * With no SDK registered it builds no attributes and reads no clock.
 */
export class ToolCallSpan {
  readonly span: Span;
  readonly #histogram: Histogram | undefined;
  /** The attributes the histogram gets: the low-cardinality ones (no session or request id); undefined when nothing records. */
  readonly #metric: Attributes | undefined;
  readonly #started: number;

  private constructor(side: "client" | "server", tool: string, parent: Context | undefined, links?: Link[]) {
    const registered = histograms();
    this.#histogram = side === "client" ? registered?.client : registered?.server;
    this.#started = this.#histogram === undefined ? 0 : performance.now();
    this.span =
      api === undefined || tracer === undefined
        ? NOT_RECORDING
        : tracer.startSpan(
            `${TOOLS_CALL} ${tool}`,
            { kind: side === "client" ? api.SpanKind.CLIENT : api.SpanKind.SERVER, ...(links === undefined ? {} : { links }) },
            parent,
          );
    const recording = this.span.isRecording();
    if (!recording && this.#histogram === undefined) return;
    this.#metric = { "mcp.method.name": TOOLS_CALL, "gen_ai.tool.name": tool, "gen_ai.operation.name": "execute_tool" };
    if (recording) this.span.setAttributes(this.#metric);
  }

  /** A call made from the current context. */
  static client(tool: string): ToolCallSpan {
    return new ToolCallSpan("client", tool, api?.context.active());
  }

  /**
   * A call served: the parent is the context the client sent in `params._meta`; the context
   * current here (a transport's span, if any) becomes a link, as the conventions ask.
   */
  static server(tool: string, meta: unknown): ToolCallSpan {
    if (api === undefined) return new ToolCallSpan("server", tool, undefined);
    const { propagation, trace } = api;
    const ambient = api.context.active();
    const sent = isRecord(meta) ? propagation.extract(ambient, meta, META_GETTER) : ambient;
    const remote = trace.getSpanContext(sent);
    if (sent === ambient || remote === undefined || !trace.isSpanContextValid(remote)) return new ToolCallSpan("server", tool, ambient);
    const local = trace.getSpanContext(ambient);
    const links = local !== undefined && trace.isSpanContextValid(local) ? [{ context: local }] : undefined;
    return new ToolCallSpan("server", tool, sent, links);
  }

  /** The context with this span current: calls made under it become its children (undefined without the API). */
  get context(): Context {
    return api?.trace.setSpan(api.context.active(), this.span) as Context;
  }

  connection(facts: ConnectionFacts): void {
    const metric = this.#metric;
    if (metric === undefined) return;
    if (facts.transport !== undefined) metric["network.transport"] = facts.transport;
    if (facts.protocolVersion !== undefined) metric["mcp.protocol.version"] = facts.protocolVersion;
    if (facts.server !== undefined) {
      metric["server.address"] = facts.server.address;
      metric["server.port"] = facts.server.port;
    }
    if (!this.span.isRecording()) return;
    this.span.setAttributes(metric);
    if (facts.sessionId !== undefined) this.span.setAttribute("mcp.session.id", facts.sessionId);
  }

  requestId(id: string | number | undefined): void {
    if (id !== undefined && this.span.isRecording()) this.span.setAttribute("jsonrpc.request.id", String(id));
  }

  /**
   * Runs `send` with this span current, so that spans of the transport underneath (HTTP, a
   * child process) are its children; with no SDK, only calls it.
   */
  around<T>(send: () => T): T {
    return api === undefined || this.span.spanContext().traceId === INVALID_TRACEID ? send() : api.context.with(this.context, send);
  }

  /** A retry or a reconnect, as a span event. */
  event(name: string, attributes: Attributes): void {
    if (this.span.isRecording()) this.span.addEvent(name, attributes);
  }

  /**
   * `params` with this span's trace context merged into its `_meta` (`traceparent`,
   * `tracestate`), by the registered propagator; the same object when there is none to send.
   * A span that does not record (not sampled) still passes its context on.
   */
  inject<P extends { [key: string]: unknown; _meta?: Record<string, unknown> }>(params: P): P {
    // The API's no-op span has the invalid context; the propagator checks the rest.
    if (api === undefined || this.span.spanContext().traceId === INVALID_TRACEID) return params;
    const carrier: Record<string, string> = {};
    api.propagation.inject(this.context, carrier);
    if (Object.keys(carrier).length === 0) return params;
    return { ...params, _meta: { ...params._meta, ...carrier } };
  }

  end(failure?: Failure): void {
    const metric = this.#metric;
    if (failure !== undefined && metric !== undefined) {
      metric["error.type"] = failure.type;
      if (failure.rpcCode !== undefined) metric["rpc.response.status_code"] = String(failure.rpcCode);
      if (this.span.isRecording()) {
        this.span.setAttributes(metric);
        // 2: SpanStatusCode.ERROR; a span records only when the API is there.
        this.span.setStatus({ code: 2, message: failure.message });
      }
    }
    this.span.end();
    this.#histogram?.record((performance.now() - this.#started) / 1000, metric);
  }
}

/** Reads `traceparent`, `tracestate` and `baggage` from `_meta`; anything but a string there is ignored. */
const META_GETTER: TextMapGetter<Record<string, unknown>> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => {
    const value = Object.hasOwn(carrier, key) ? carrier[key] : undefined;
    return typeof value === "string" ? value : undefined;
  },
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
