import { ProtocolError, SdkError, SdkErrorCode, type Transport } from "@modelcontextprotocol/client";
import type { z } from "zod";
import { CallResult, observedResult, resultJson, throwIfError } from "./call-result.js";
import { readConfigFile, type ServerEntry, sourcesFromEntries } from "./endpoints/config-file.js";
import { type Connection, connect, connectTransport, overLimitMessage } from "./endpoints/connect.js";
import { listAllTools } from "./endpoints/list-tools.js";
import type { ServerSource } from "./endpoints/source.js";
import { NonObjectResult, type StrayOutput, strayOutputWarning } from "./endpoints/stdio-read-buffer.js";
import { errorMessage, firstLine } from "./error-message.js";
import {
  AbortError,
  ArgumentError,
  CompositionError,
  ConfigurationError,
  ConnectionError,
  InvalidResponseError,
  OutputValidationError,
  ServerNotFoundError,
  TimeoutError,
  ToolCallError,
  TransportError,
} from "./errors.js";
import { notJsonAt } from "./json-value.js";
import { timeoutProblem, wholeNumberProblem } from "./number-rules.js";
import { ObservationRecorder, type ObserveOptions } from "./observer.js";
import { safeParseDeep } from "./schema-helpers.js";
import { callAsTask, TaskEnded } from "./task-call.js";
import { failureOf, ToolCallSpan } from "./telemetry.js";
import { ParsedResult, ToolResult } from "./tool-result.js";

export type { ServerEntry };

export interface CompositionClientOptions {
  /** The `mcpServers` entries: `{ command, args?, env?, cwd? }` or `{ url, headers?, transport? }`; values take `${VAR}`. */
  servers: Record<string, ServerEntry>;
  /** Per-call timeout in milliseconds, also the connect timeout (default 60 000). */
  timeoutMs?: number;
  /** Extra attempts after a transport failure, for tools annotated read-only or idempotent only (default 1). */
  retries?: number;
  /**
   * The largest message a stdio server may write, in bytes (default 10 MiB, the SDK's). A larger
   * answer fails its call with an InvalidResponseError naming the limit, and is never retried.
   */
  maxMessageBytes?: number;
  /** Folder that relative `cwd` values resolve against (default: the current directory). */
  baseDir?: string;
  /** Servers reached through a transport you build, e.g. an in-process server over `InMemoryTransport`. */
  transports?: Record<string, () => Transport>;
  /** Record every successful result in per-tool observation logs, for `pmcp schema infer`. */
  observe?: ObserveOptions;
  /**
   * Told when a result does not match a schema that was inferred from observations rather
   * than declared by the server; the value is returned anyway (default: one process warning per tool).
   */
  onInferredMismatch?: (error: OutputValidationError) => void;
  /**
   * Told, once per server and when its connection closes, of the lines a stdio server wrote to stdout
   * that are not JSON-RPC (a banner, a log line): skipped, as the MCP SDKs skip them, and the server used
   * (default: one process warning per server, `PmcpStrayOutputWarning`).
   */
  onStrayOutput?: (serverId: string, stray: StrayOutput) => void;
}

export interface CallOptions {
  /** Overrides the client's timeout for this call. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Options of a call that returns the whole result (`rt.ParsedResult`: `.value` beside the content blocks), not only the value. */
export interface WithResult extends CallOptions {
  withResult: true;
}

/** One call of a tool without an output schema, as a generated client method makes it. */
export interface ResultCall {
  server: string;
  tool: string;
  args?: object;
  /** Safe to repeat after a transport failure (the tool is read-only or idempotent). */
  retryable?: boolean;
  /**
   * The protocol version the bundle recorded for the server: a first connect starts in that era
   * without a probe, and negotiates only if the server refuses it.
   */
  protocol?: string;
  /**
   * The tool requires task augmentation (`execution.taskSupport: "required"`): in the 2025 era it is
   * called as a task (created, polled until it ends, its result read; cancelled on abort or timeout).
   */
  task?: boolean;
}

/** One call of a tool with an output schema, as a generated client method makes it. */
export interface ToolCall<T> extends ResultCall {
  /** The generated Zod parser for the tool's result. */
  parse: z.ZodType<T>;
  /**
   * The parser was inferred from observations: a mismatch is reported, not thrown, and a result
   * without JSON has the value undefined. Generated clients ask for such a call `withResult`, so
   * that their callers keep the ToolResult surface whatever type is learned.
   */
  lenient?: boolean;
  /**
   * The declared output schema's root is not an object (allowed from protocol 2026-07-28 on):
   * in the 2025 era a v2 server sends the value wrapped as `{ result }`, which is unwrapped.
   */
  nonObject?: boolean;
}

/** A call's time by default: a tool's work (a search, a build) takes longer than the 30 s the CLI gives a server to connect and list its tools. */
const DEFAULT_TIMEOUT_MS = 60_000;

/** adoptConnection's body, which the class's static block sets: it reaches the client's private state. */
let adopt: (client: CompositionClient, id: string, connection: Connection) => void;

/**
 * Calls tools on other MCP servers for generated clients. Connects lazily, shares one
 * connection per server between concurrent calls, reconnects on the next call after a
 * connection closed, and turns every failure into a typed CompositionError.
 */
export class CompositionClient {
  readonly #sources: Map<string, ServerSource | (() => Transport)>;
  readonly #connections = new Map<string, Promise<Connection>>();
  /** Open connections, for the hot path: no promise hop once a server is connected. */
  readonly #ready = new Map<string, Connection>();
  readonly #timeoutMs: number;
  readonly #retries: number;
  readonly #maxMessageBytes: number | undefined;
  readonly #observer: ObservationRecorder | undefined;
  readonly #onInferredMismatch: (error: OutputValidationError) => void;
  readonly #warned = new Set<string>();
  readonly #onStrayOutput: (serverId: string, stray: StrayOutput) => void;
  readonly #strayTold = new Set<string>();
  /** The deadlines of connects under way, so that close() need not wait for a server that never answers. */
  readonly #connecting = new Set<AbortController>();

  /** Throws a ConfigurationError for a bad entry, an unset `${VAR}`, a bad URL or a bad option. */
  constructor(options: CompositionClientOptions) {
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#retries = options.retries ?? 1;
    const retriesProblem = wholeNumberProblem(this.#retries, { min: 0 });
    if (retriesProblem !== undefined) throw new ConfigurationError(`retries ${retriesProblem}`);
    const problem = timeoutProblem(this.#timeoutMs);
    if (problem !== undefined) throw new ConfigurationError(`timeoutMs ${problem}, got ${this.#timeoutMs}`);
    const { maxMessageBytes } = options;
    const sizeProblem = maxMessageBytes === undefined ? undefined : wholeNumberProblem(maxMessageBytes, { unit: "bytes" });
    if (sizeProblem !== undefined) throw new ConfigurationError(`maxMessageBytes ${sizeProblem}`);
    this.#maxMessageBytes = maxMessageBytes;
    const sources = sourcesFromEntries(options.servers, "CompositionClient servers", options.baseDir ?? process.cwd());
    this.#sources = new Map<string, ServerSource | (() => Transport)>([
      ...sources.map((source) => [source.id ?? source.label, this.#withLimit(source)] as const),
      ...Object.entries(options.transports ?? {}),
    ]);
    this.#observer = options.observe === undefined ? undefined : new ObservationRecorder(options.observe);
    this.#onInferredMismatch = options.onInferredMismatch ?? ((error) => this.#warnOnce(error));
    this.#onStrayOutput =
      options.onStrayOutput ?? ((serverId, stray) => process.emitWarning(strayOutputWarning(serverId, stray), "PmcpStrayOutputWarning"));
  }

  /**
   * A client for the servers of an `mcpServers` (or VS Code `servers`) JSON file; relative
   * `cwd`s resolve against its folder. A missing or unreadable file, bad JSON or a wrong
   * shape is a ConfigurationError naming the file and the JSON path.
   */
  static async fromConfigFile(
    path: string,
    options: Omit<CompositionClientOptions, "servers" | "baseDir"> = {},
  ): Promise<CompositionClient> {
    // Read like the CLI's --config, so its messages name the file.
    return CompositionClient.fromSources(await readConfigFile(path), options);
  }

  /**
   * A client for servers already resolved (interpolated, validated), as pmcp's commands and
   * `readConfigFile` produce them: nothing is read or interpolated again. `transports` still win.
   */
  static fromSources(
    sources: readonly ServerSource[],
    options: Omit<CompositionClientOptions, "servers" | "baseDir"> = {},
  ): CompositionClient {
    const client = new CompositionClient({ ...options, servers: {} });
    for (const source of sources) {
      const id = source.id ?? source.label;
      if (!client.#sources.has(id)) client.#sources.set(id, client.#withLimit(source));
    }
    return client;
  }

  #withLimit(source: ServerSource): ServerSource {
    return source.kind === "stdio" && this.#maxMessageBytes !== undefined ? { ...source, maxMessageBytes: this.#maxMessageBytes } : source;
  }

  /** Calls a tool and returns its parsed result; with `{ withResult: true }`, the whole result with the value in `.value`. */
  callTool<T>(call: ToolCall<T>, options?: CallOptions & { withResult?: false }): Promise<T>;
  callTool<T>(call: ToolCall<T>, options: WithResult): Promise<ParsedResult<T>>;
  callTool<T>(call: ToolCall<T>, options?: CallOptions & { withResult?: boolean }): Promise<T | ParsedResult<T>>;
  callTool<T>(call: ToolCall<T>, options: CallOptions & { withResult?: boolean } = {}): Promise<T | ParsedResult<T>> {
    return this.#call(call, options, (result, era) => {
      const value = this.#interpret(call, result, era, options.withResult === true);
      return options.withResult === true ? new ParsedResult(call.server, call.tool, result, value) : value;
    });
  }

  /**
   * Calls a tool that declares no output schema and returns its result as it came: text,
   * images, links or JSON (see ToolResult). Only `isError` fails it (a ToolCallError).
   */
  callToolForResult(call: ResultCall, options: CallOptions = {}): Promise<ToolResult> {
    return this.#call(call, options, (result) => {
      throwIfError(call.server, call.tool, result);
      this.#observer?.recordObserved(call.server, call.tool, observedResult(call.server, call.tool, result));
      return new ToolResult(call.server, call.tool, result);
    });
  }

  /** The ids of the servers this client reaches, in the order they were configured. */
  get serverIds(): string[] {
    return [...this.#sources.keys()];
  }

  /**
   * Every tool of a server as the server sent it (`tools/list` followed to the end; nothing the
   * SDK's own listing would drop is lost). Connects on first use, like a call. A listing the server
   * breaks is an InvalidResponseError; an unknown server a ServerNotFoundError.
   */
  async listTools(server: string, options: CallOptions = {}): Promise<unknown[]> {
    const source = this.#sources.get(server);
    const call = { server, tool: "tools/list" };
    if (source === undefined)
      throw new ServerNotFoundError(
        `no server "${server}" is configured (have: ${[...this.#sources.keys()].join(", ")})`,
        server,
        call.tool,
      );
    const timeout = options.timeoutMs ?? this.#timeoutMs;
    const problem = timeoutProblem(timeout);
    if (problem !== undefined) throw new ConfigurationError(`the listing's timeoutMs ${problem}, got ${timeout}`);
    const connection = this.#ready.get(server) ?? (await untilAborted(this.#connection(source, call, timeout), call, options.signal));
    if (connection.capabilities.tools === undefined) return [];
    // A timer cleared at the end rather than AbortSignal.timeout, whose timer keeps Deno running.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new DOMException(`tools/list took over ${timeout} ms`, "TimeoutError")), timeout);
    const signal = options.signal === undefined ? deadline.signal : AbortSignal.any([deadline.signal, options.signal]);
    try {
      const listing = await listAllTools(connection, signal, (message) => new InvalidResponseError(message, server, call.tool, undefined));
      return listing.tools;
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Sends the call, retrying a retryable one after a transport failure, and reads its result with
   * `read`; one span covers the call, its retries are events on it.
   */
  async #call<R>(call: ResultCall, options: CallOptions, read: (result: CallResult, era: Connection["era"]) => R): Promise<R> {
    const span = ToolCallSpan.client(call.tool);
    try {
      const source = this.#sources.get(call.server);
      if (source === undefined) {
        throw new ServerNotFoundError(
          `no server "${call.server}" is configured (have: ${[...this.#sources.keys()].join(", ")})`,
          call.server,
          call.tool,
        );
      }
      // The SDK would fail on a BigInt or a cycle while sending, which looks like a broken connection, and
      // send a number that is not finite as null, a value the caller did not give.
      const notJson = notJsonAt(call.args);
      if (notJson !== undefined) {
        const at = notJson.pointer === "" ? "" : `${notJson.pointer}: `;
        throw new ArgumentError(`the arguments cannot be sent as JSON: ${at}${notJson.reason}`, call.server, call.tool);
      }
      const attempts = call.retryable ? 1 + this.#retries : 1;
      for (let attempt = 1; ; attempt++) {
        try {
          const [result, era] = await this.#request(source, call, options, span);
          const value = read(result, era);
          span.end();
          return value;
        } catch (error) {
          if (!(error instanceof TransportError) || attempt >= attempts) throw error;
          span.event("retry", { "pmcp.retry.attempt": attempt + 1, "error.type": error.code });
        }
      }
    } catch (error) {
      span.end(failureOf(error));
      throw error;
    }
  }

  /** Forgets and closes a connection after a transport failure, unless a newer one replaced it already. */
  #drop(id: string, connection: Connection): void {
    if (this.#ready.get(id) === connection) {
      this.#ready.delete(id);
      this.#connections.delete(id);
    }
    void connection.close();
  }

  /**
   * The result's value, observed, then parsed. A lenient parser (a type inferred from observations)
   * never fails a call: a value that does not match it is reported and passed on; a result that
   * holds no JSON at all (prose where JSON was seen before) is reported, observed as what it is, and
   * has no value: undefined, its text and blocks still on the ParsedResult generated clients return.
   * Asked for the value alone (clients generated before inferred tools returned a ParsedResult), it
   * is the result as it came, as those clients were told.
   */
  #interpret<T>(call: ToolCall<T>, result: CallResult, era: Connection["era"], withResult: boolean): T {
    const sent = call.nonObject && era === "legacy" ? unwrapped(result) : result;
    throwIfError(call.server, call.tool, sent);
    const observed = call.lenient ? observedResult(call.server, call.tool, sent) : { value: resultJson(call.server, call.tool, sent) };
    this.#observer?.recordObserved(call.server, call.tool, observed);
    if (!("value" in observed)) {
      const issue = { code: "custom" as const, path: [], message: "the result holds no JSON", input: undefined };
      this.#onInferredMismatch(new OutputValidationError(call.server, call.tool, [issue], sent));
      return (withResult ? undefined : sent) as T;
    }
    const value = observed.value;
    const parsed = safeParseDeep(call.parse, value);
    if (parsed.success) return parsed.data;
    const error = new OutputValidationError(call.server, call.tool, parsed.error.issues, value);
    if (!call.lenient) throw error;
    this.#onInferredMismatch(error);
    return value as T;
  }

  #warnOnce(error: OutputValidationError): void {
    const key = JSON.stringify([error.serverId, error.toolName]);
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    process.emitWarning(
      `${error.message} (the schema was inferred from observations; the value is passed on as it is)`,
      "PmcpInferredSchemaWarning",
    );
  }

  /** Waits until every observed result is in its log. */
  flushObservations(): Promise<void> {
    return this.#observer?.flush() ?? Promise.resolve();
  }

  /** Closes every open connection (stdio servers are stopped) and writes pending observations. */
  async close(): Promise<void> {
    for (const deadline of this.#connecting) deadline.abort(new DOMException("the client was closed", "AbortError"));
    const open = [...this.#connections.values()];
    this.#connections.clear();
    this.#ready.clear();
    await Promise.all([
      ...open.map((pending) =>
        pending.then(
          (connection) => connection.close(),
          () => {},
        ),
      ),
      this.flushObservations(),
    ]);
  }

  async #request(
    source: ServerSource | (() => Transport),
    call: ResultCall,
    options: CallOptions,
    span: ToolCallSpan,
  ): Promise<[CallResult, Connection["era"]]> {
    const timeout = options.timeoutMs ?? this.#timeoutMs;
    const problem = timeoutProblem(timeout);
    if (problem !== undefined) throw new ConfigurationError(`the call's timeoutMs ${problem}, got ${timeout}`);
    const { signal } = options;
    // Aborted already: nothing is started (no server spawned for a call nobody waits for).
    if (signal?.aborted) throw aborted(call, signal);
    let connection = this.#ready.get(call.server);
    if (connection === undefined) {
      // A first connect, or a reconnect after the connection broke: either shows in the trace.
      span.event("connect", { "pmcp.server.id": call.server });
      connection = await untilAborted(this.#connection(source, call, timeout), call, signal);
    }
    span.connection(connection.facts);
    span.requestId(connection.nextRequestId());
    // The SDK adds a listener to the signal it is given for each request and never removes it.
    const cancel = signal === undefined ? undefined : new AbortController();
    const unwatch = signal === undefined ? undefined : whenAborted(signal, () => cancel?.abort(signal.reason));
    try {
      const params = span.inject({ name: call.tool, arguments: call.args ?? {} });
      const result = await span.around(() =>
        // The modern era has no tasks: a tool that needed one there answers the plain call.
        call.task && connection.era === "legacy"
          ? callAsTask(connection.client, params, { timeoutMs: timeout, signal: cancel?.signal })
          : connection.client.request({ method: "tools/call", params }, CallResult, {
              timeout,
              // Handed back, not fulfilled: pmcp has no input to give (see inputRequired in connect.ts).
              allowInputRequired: true,
              ...(cancel === undefined ? {} : { signal: cancel.signal }),
            }),
      );
      const asked = inputRequested(result);
      if (asked !== undefined) throw new ToolCallError(call.server, call.tool, asked);
      return [result, connection.era];
    } catch (error) {
      if (signal?.aborted) throw aborted(call, signal);
      const failure = callError(error, call, timeout, connection.exceededLimit);
      // The connection is no good (an HTTP session lost, a process gone): the next call reconnects.
      if (failure instanceof TransportError) this.#drop(call.server, connection);
      throw failure;
    } finally {
      unwatch?.();
    }
  }

  #connection(source: ServerSource | (() => Transport), call: ResultCall, timeout: number): Promise<Connection> {
    const id = call.server;
    let pending = this.#connections.get(id);
    if (pending === undefined) {
      // Not AbortSignal.timeout: its timer keeps Deno running until it fires, long after the connect.
      const deadline = new AbortController();
      this.#connecting.add(deadline);
      const timer = setTimeout(() => deadline.abort(new DOMException(`no connection within ${timeout} ms`, "TimeoutError")), timeout);
      const onStrayOutput = (stray: StrayOutput) => this.#tellStray(id, stray);
      const options = { signal: deadline.signal, recorded: call.protocol, timeoutMs: timeout, onStrayOutput };
      pending = (typeof source === "function" ? connectTransport(source, options) : connect(source, options))
        .catch((error: unknown) => {
          throw new ConnectionError(errorMessage(error), id, call.tool, { cause: error });
        })
        .finally(() => {
          clearTimeout(timer);
          this.#connecting.delete(deadline);
        });
      this.#keep(id, pending);
    }
    return pending.catch((error: unknown) => {
      // Re-label a shared connect failure with this call's tool.
      if (error instanceof ConnectionError && error.toolName !== call.tool)
        throw new ConnectionError(errorMessage(error.cause), id, call.tool, { cause: error.cause });
      throw error;
    });
  }

  /** Makes `pending` the connection of server `id`, until it fails, closes or breaks. */
  #keep(id: string, pending: Promise<Connection>): void {
    this.#connections.set(id, pending);
    const forget = () => {
      if (this.#connections.get(id) !== pending) return;
      this.#connections.delete(id);
      this.#ready.delete(id);
    };
    // A failed connect is not cached; a closed or broken connection is replaced on the next call.
    // Closing a broken one (garbage on stdout) fails its calls in flight at once, as TransportErrors.
    pending.then((connection) => {
      // close() may have run while this connect was pending: then the connection is not kept.
      if (this.#connections.get(id) !== pending) return void connection.close();
      this.#ready.set(id, connection);
      connection.broken.catch(() => {
        forget();
        void connection.close();
      });
    }, forget);
  }

  #tellStray(id: string, stray: StrayOutput): void {
    if (this.#strayTold.has(id)) return;
    this.#strayTold.add(id);
    this.#onStrayOutput(id, stray);
  }

  static {
    adopt = (client, id, connection) => {
      if (!client.#sources.has(id)) throw new ServerNotFoundError(`no server "${id}" is configured`, id, "connect");
      if (client.#connections.has(id)) throw new ConfigurationError(`server "${id}" has a connection already`);
      connection.onStrayOutput = (stray) => client.#tellStray(id, stray);
      client.#keep(id, Promise.resolve(connection));
    };
  }
}

/**
 * Gives `client` an open connection to one of its servers, made by its caller (pmcp's exec commands
 * list a server's tools on it), for its calls: the server is not started a second time. The client
 * then owns it, as one it opened: it closes it, and replaces it once it breaks.
 */
export function adoptConnection(client: CompositionClient, id: string, connection: Connection): void {
  adopt(client, id, connection);
}

function aborted(call: ResultCall, signal: AbortSignal): AbortError {
  return new AbortError("the call was aborted", call.server, call.tool, { cause: signal.reason });
}

/**
 * Stops this call's wait for a connection when its signal aborts; the connect goes on for
 * other callers (the connection is shared), bounded by its own timeout.
 */
function untilAborted<T>(pending: Promise<T>, call: ResultCall, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return pending;
  return new Promise<T>((resolve, reject) => {
    const unwatch = whenAborted(signal, () => reject(aborted(call, signal)));
    pending.then(resolve, reject).finally(unwatch);
  });
}

/** The calls waiting on each caller's signal. */
const abortWatchers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `onAbort` when the signal aborts; returns the function that stops watching. A signal
 * shared by many concurrent calls gets one listener, not one per call (past ten, Node warns
 * MaxListenersExceededWarning).
 */
function whenAborted(signal: AbortSignal, onAbort: () => void): () => void {
  let watchers = abortWatchers.get(signal);
  if (watchers === undefined) {
    const created = new Set<() => void>();
    abortWatchers.set(signal, created);
    signal.addEventListener(
      "abort",
      () => {
        for (const watcher of created) watcher();
      },
      { once: true },
    );
    watchers = created;
  }
  const watcher = () => onAbort();
  watchers.add(watcher);
  return () => void watchers.delete(watcher);
}

/**
 * v2's `{ result }` wrapper around a non-object value, as 2025-era clients get it, taken off;
 * a result in any other shape is left as it is (the parser then says what is wrong).
 */
function unwrapped(result: CallResult): CallResult {
  const structured = result.structuredContent;
  if (typeof structured !== "object" || structured === null || Array.isArray(structured)) return result;
  const keys = Object.keys(structured);
  return keys.length === 1 && keys[0] === "result" ? { ...result, structuredContent: (structured as { result: unknown }).result } : result;
}

/**
 * What a 2026-07-28 server asked for when it answered the call with `input_required` (elicitation,
 * sampling, roots), in a tool error's words; undefined for a result.
 */
function inputRequested(result: unknown): string | undefined {
  if (typeof result !== "object" || result === null || (result as { resultType?: unknown }).resultType !== "input_required")
    return undefined;
  const requests = (result as { inputRequests?: unknown }).inputRequests;
  const methods =
    typeof requests === "object" && requests !== null
      ? [
          ...new Set(
            Object.values(requests)
              .map((request) => (request as { method?: unknown })?.method)
              .filter((method) => typeof method === "string"),
          ),
        ]
      : [];
  return `the server asked for input (input_required${methods.length > 0 ? `: ${methods.join(", ")}` : ""}), which pmcp does not provide`;
}

/**
 * The SDK's own failures (its timer, a closed connection, a result it could not read) are
 * SdkErrors; a JSON-RPC error the server sent is a ProtocolError, never retried and never a
 * reason to reconnect.
 */
function callError(error: unknown, call: ResultCall, timeout: number, exceededLimit: number | undefined): CompositionError {
  if (error instanceof CompositionError) return error;
  if (error instanceof TaskEnded) return new ToolCallError(call.server, call.tool, error.message, { cause: error });
  if (error instanceof ProtocolError) {
    if (error.data instanceof NonObjectResult)
      return new InvalidResponseError(
        `malformed tools/call result: expected an object, got ${JSON.stringify(error.data.value)?.slice(0, 80)}`,
        call.server,
        call.tool,
        error.data.value,
      );
    return new ToolCallError(call.server, call.tool, error.message, { cause: error, rpcCode: error.code });
  }
  if (error instanceof SdkError) {
    if (error.code === SdkErrorCode.RequestTimeout)
      return new TimeoutError(`no answer within ${timeout} ms`, call.server, call.tool, { cause: error });
    // The answer arrived, too large to read: running the tool again would only repeat that.
    if (error.code === SdkErrorCode.ConnectionClosed && exceededLimit !== undefined)
      return new InvalidResponseError(overLimitMessage(exceededLimit), call.server, call.tool, undefined);
    if (error.code === SdkErrorCode.ConnectionClosed)
      return new TransportError("the connection closed during the call", call.server, call.tool, { cause: error });
    if (error.code === SdkErrorCode.InvalidResult)
      return new InvalidResponseError(`malformed tools/call result: ${firstLine(error.message)}`, call.server, call.tool, undefined);
  }
  return new TransportError(errorMessage(error), call.server, call.tool, { cause: error });
}
