import {
  Client,
  type DiscoverResult,
  type FetchLike,
  type Implementation,
  type PriorDiscovery,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SERVER_INFO_META_KEY,
  type ServerCapabilities,
  SSEClientTransport,
  SseError,
  StreamableHTTPClientTransport,
  type Transport,
  UnauthorizedError,
  type VersionNegotiationMode,
} from "@modelcontextprotocol/client";
import { errorMessage, firstLine } from "../error-message.js";
import { DEFAULT_MAX_MESSAGE_BYTES } from "../number-rules.js";
import { type ConnectionFacts, INSTRUMENTATION } from "../telemetry.js";
import { PingBehindDiscover } from "./era-probe.js";
import { isModernVersion } from "./protocol-version.js";
import type { HttpSource, ServerSource, StdioSource } from "./source.js";
import { describeStrayOutput, MessageTooLarge, StdioReadBuffer, type StrayOutput } from "./stdio-read-buffer.js";

const CLIENT_INFO = { ...INSTRUMENTATION };
const STDERR_TAIL_BYTES = 2000;

export type TransportKind = "stdio" | "streamable-http" | "sse" | "custom";

/** An established session with one server, in either protocol era. */
export interface Connection {
  client: Client;
  transport: TransportKind;
  /** The server's name and version; a modern server that does not name itself (a SHOULD) gets `{ name: "", version: "" }`. */
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  protocolVersion: string;
  /** `modern`: 2026-07-28 or later (`server/discover`, no session); `legacy`: the 2025 `initialize` handshake. */
  era: "modern" | "legacy";
  instructions: string | undefined;
  /**
   * Rejects as soon as the server breaks the protocol (a broken message on stdout) or the
   * connection closes; race it against each request so a broken server fails fast.
   */
  broken: Promise<never>;
  /** Whether the transport has closed (a server may also answer with an error of its own while the connection stays). */
  readonly closed: boolean;
  /**
   * The stdio message limit in bytes when the server wrote a message over it: the SDK then
   * closes the connection, though the answer did arrive, so the call must not be repeated.
   */
  readonly exceededLimit: number | undefined;
  /** What a call's span records about the connection. */
  readonly facts: ConnectionFacts;
  /**
   * Told of what a stdio server wrote to stdout that is not JSON-RPC, once per connection (see
   * ConnectOptions.onStrayOutput); replaced by whoever takes over a connection another opened.
   */
  onStrayOutput: ((stray: StrayOutput) => void) | undefined;
  /** The JSON-RPC id the next request sent on this connection gets. */
  nextRequestId(): number | undefined;
  close(): Promise<void>;
}

/**
 * How the protocol era is chosen: `auto` negotiates (modern first, the 2025 handshake as
 * fallback, probed on the session's own connection), `legacy` runs the 2025 handshake only, a
 * version (`2026-07-28`) speaks that modern revision only.
 */
type ProtocolChoice = string;

export interface ConnectOptions {
  signal: AbortSignal;
  /**
   * The connect's time limit (the signal enforces it), which the `server/discover` probe may use
   * whole: a server still starting is waited for, not taken for a 2025 one (default: the SDK's 60 s).
   */
  timeoutMs?: number | undefined;
  /**
   * The protocol version a bundle recorded for this server: the connection starts in that era
   * without a probe (modern: adopted, then confirmed with one `server/discover` on the same
   * connection; 2025: `initialize`), and negotiates as `auto` does when the server refuses it.
   * A source's own `protocol` wins over it.
   */
  recorded?: string | undefined;
  /**
   * Told once of the lines a stdio server wrote to stdout that are not JSON-RPC (skipped, as the MCP
   * SDKs skip them), if it wrote any: at its first message after them, else when the connection closes.
   */
  onStrayOutput?: ((stray: StrayOutput) => void) | undefined;
}

/** Connects in the era the source forces, else the recorded one, else negotiates; for `auto` HTTP, falls back to HTTP+SSE when Streamable HTTP is refused. */
export async function connect(source: ServerSource, options: ConnectOptions): Promise<Connection> {
  const eras = firstEra(source.protocol, options.recorded);
  if (source.kind === "stdio") return connectStdio(source, eras, { ...options, onStrayOutput: once(options.onStrayOutput) });
  const connection = await connectHttp(source, eras, options);
  const url = source.url;
  // The conventions want the host without the brackets an IPv6 address has in a URL.
  const address = url.hostname.replace(/^\[(.*)\]$/, "$1");
  connection.facts.server = { address, port: url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port) };
  return connection;
}

/** Each era attempt starts the server again, and it prints its banner again: the server's lines are told once. */
function once(tell: ConnectOptions["onStrayOutput"]): ConnectOptions["onStrayOutput"] {
  let told = false;
  return (stray) => {
    if (told) return;
    told = true;
    tell?.(stray);
  };
}

/** One way of opening a session: the SDK's negotiation mode, a verdict adopted without a probe, and whether to confirm it. */
interface EraAttempt {
  mode: VersionNegotiationMode;
  prior?: PriorDiscovery;
  /** Send one `server/discover` on the connection: an adopted modern verdict is checked before any tool runs. */
  confirm?: boolean;
}

const AUTO: EraAttempt = { mode: "auto" };
const LEGACY: EraAttempt = { mode: "legacy" };

/**
 * How a server turned an era down: `refused`, it answered that it does not speak it (a JSON-RPC
 * error such as -32022 or -32601, a result without the modern era's fields); `closed`, it closed the
 * connection on `server/discover`, as servers on SDKs that exit on anything before `initialize` do.
 */
type Refusal = "refused" | "closed";

/** The first era to try, and whether others may follow. */
interface EraPlan {
  era: EraAttempt;
  fallback: boolean;
}

/** The first attempt, and whether another era may follow a refusal (not when `--protocol` forced one). */
function firstEra(forced: ProtocolChoice | undefined, recorded: string | undefined): EraPlan {
  if (forced === "legacy") return { era: LEGACY, fallback: false };
  if (forced === "auto") return { era: AUTO, fallback: true };
  if (forced !== undefined) return { era: { mode: { pin: forced } }, fallback: false };
  if (recorded === undefined) return { era: AUTO, fallback: true };
  if (!isModernVersion(recorded)) return { era: LEGACY, fallback: true };
  const discover: DiscoverResult = { supportedVersions: [recorded], capabilities: { tools: {} } };
  return { era: { mode: "legacy", prior: { kind: "modern", discover }, confirm: true }, fallback: true };
}

/**
 * The era to try after `era` was turned down: a server that closed the connection on
 * `server/discover` gets the 2025 handshake on a fresh one; a refused recorded era gets
 * negotiation; negotiation itself, which ends in the 2025 handshake, has nothing after it.
 */
function nextEra(era: EraAttempt, refusal: Refusal): EraAttempt | undefined {
  if (refusal === "closed") return era === LEGACY ? undefined : LEGACY;
  return era === AUTO ? undefined : AUTO;
}

async function connectHttp(source: HttpSource, eras: EraPlan, options: ConnectOptions): Promise<Connection> {
  // HTTP+SSE (protocol 2024-11-05) is a 2025-era transport: there is nothing to negotiate on it.
  const sseEras = source.protocol === undefined ? { era: LEGACY, fallback: false } : eras;
  if (source.transport === "sse") return connectWith(() => sseTransport(source), "sse", sseEras, options);
  try {
    return await connectWith(() => streamableTransport(source), "streamable-http", eras, options);
  } catch (error) {
    if (source.transport === "auto" && isLegacyServerRefusal(error) && !options.signal.aborted) {
      return connectWith(() => sseTransport(source), "sse", sseEras, options);
    }
    throw error;
  }
}

/** Status codes with which a server that only speaks the 2024-11-05 HTTP+SSE transport answers a POST. */
function isLegacyServerRefusal(error: unknown): boolean {
  return error instanceof HttpFailure && [400, 404, 405].includes(error.status);
}

/** Why a connection could not be made, in one line; wrapped by callers (CompositionClient's ConnectionError). */
export class ConnectFailure extends Error {
  override readonly name = "ConnectFailure";
}

class HttpFailure extends ConnectFailure {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * fetch leaves an abort listener on a request's signal until the request is garbage-collected,
 * and the SDK's HTTP transports pass one signal to every request of a session: a busy session
 * collects thousands of listeners between collections, and Node warns past 1,500
 * (MaxListenersExceededWarning). Each request gets a signal of its own that follows the session's.
 */
const fetchWithOwnSignal: FetchLike = (url, init) => fetch(url, init?.signal ? { ...init, signal: AbortSignal.any([init.signal]) } : init);

function streamableTransport(source: HttpSource): Transport {
  return new StreamableHTTPClientTransport(source.url, { requestInit: { headers: source.headers }, fetch: fetchWithOwnSignal });
}

function sseTransport(source: HttpSource): Transport {
  // Headers go on the POSTs (requestInit) and on the event stream's GET (the fetch below).
  return new SSEClientTransport(source.url, {
    requestInit: { headers: source.headers },
    fetch: fetchWithOwnSignal,
    eventSourceInit: {
      fetch: (url, init) =>
        fetch(url, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers).entries()), ...source.headers } }),
    },
  });
}

async function connectStdio(source: StdioSource, eras: EraPlan, options: ConnectOptions): Promise<Connection> {
  // Loaded here, not at the top: it pulls in child_process, which Deno, Bun and edge
  // runtimes serving HTTP clients may not have.
  const { StdioTransport } = await import("./stdio-transport.js");
  const env = source.inheritEnv ? { ...definedEnv(process.env), ...source.env } : source.env;
  let stderrTail = "";
  let current: InstanceType<typeof StdioTransport> | undefined;
  const makeTransport = () => {
    const transport = new StdioTransport({
      command: source.command,
      args: source.args,
      env,
      cwd: source.cwd,
      maxMessageBytes: source.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    });
    stderrTail = "";
    transport.stderr.on("data", (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
    });
    current = transport;
    return transport;
  };
  // A program that is no MCP server (or one that only logs) is told by what it printed, not by a bare timeout.
  const withOutput = (message: string): string => {
    const stray = current?.readBuffer.messages === 0 ? current.readBuffer.stray : undefined;
    const stdout = stray === undefined ? "" : `; on stdout it wrote no JSON-RPC, only ${describeStrayOutput(stray)}`;
    const tail = stderrSummary(stderrTail);
    return `${message}${stdout}${tail ? ` (stderr: ${tail})` : ""}`;
  };
  try {
    return await connectWith(makeTransport, "stdio", eras, options, withOutput);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new ConnectFailure(`cannot start "${source.command}": command not found`);
    }
    throw error;
  }
}

/**
 * Connects over transports the caller builds (an in-process server, a test double), one per
 * attempt; `protocol` as a source's.
 */
export function connectTransport(
  makeTransport: () => Transport,
  options: ConnectOptions & { protocol?: ProtocolChoice | undefined },
): Promise<Connection> {
  return connectWith(makeTransport, "custom", firstEra(options.protocol, options.recorded), options);
}

/**
 * Tries the planned era, then, while the server turns eras down and `fallback` allows, the next
 * one (three attempts at most: recorded, negotiated, 2025); the last failure is explained in one line.
 */
async function connectWith(
  makeTransport: () => Transport,
  kind: TransportKind,
  plan: EraPlan,
  options: ConnectOptions,
  describe: (message: string) => string = (message) => message,
): Promise<Connection> {
  for (let era: EraAttempt | undefined = plan.era; ; ) {
    try {
      return await connectInEra(makeTransport(), kind, era, options, describe);
    } catch (error) {
      if (!(error instanceof EraRefused)) throw error;
      era = plan.fallback && !options.signal.aborted ? nextEra(era, error.refusal) : undefined;
      if (era === undefined) throw error.explained;
    }
  }
}

/** A server turned down the era an attempt offered; `explained` is the failure to report if no other era is left. */
class EraRefused extends Error {
  constructor(
    readonly refusal: Refusal,
    readonly explained: Error,
  ) {
    super(explained.message);
  }
}

/**
 * Whether a failure says "not in this era" rather than "not at all" (see Refusal). A server that
 * cannot be reached, fails (HTTP 5xx), asks for credentials, or closes the connection on the 2025
 * `initialize` itself, is not there in any era.
 */
function refusalOf(error: unknown, era: EraAttempt): Refusal | undefined {
  if (networkCause(error) !== undefined) return undefined;
  if (error instanceof SdkHttpError) return error.status === 400 && jsonRpcErrorIn(error) !== undefined ? "refused" : undefined;
  if (error instanceof ProtocolError) return "refused";
  if (!(error instanceof SdkError)) return undefined;
  const refused: string[] = [
    SdkErrorCode.InvalidResult,
    SdkErrorCode.UnsupportedResultType,
    SdkErrorCode.MethodNotSupportedByProtocolVersion,
  ];
  if (refused.includes(error.code)) return "refused";
  const closed: string[] = [SdkErrorCode.ConnectionClosed, SdkErrorCode.EraNegotiationFailed];
  return closed.includes(error.code) && era !== LEGACY ? "closed" : undefined;
}

/** The JSON-RPC error an HTTP 2025-era exchange carried in a 400's body (a modern-only server's -32022). */
function jsonRpcErrorIn(error: SdkHttpError): { code: number; message: string } | undefined {
  const body = error.data.text;
  if (typeof body !== "string") return undefined;
  try {
    const parsed = (JSON.parse(body) as { error?: { code?: unknown; message?: unknown } }).error;
    return typeof parsed?.code === "number" && typeof parsed.message === "string"
      ? { code: parsed.code, message: parsed.message }
      : undefined;
  } catch {
    return undefined;
  }
}

async function connectInEra(
  transport: Transport,
  kind: TransportKind,
  era: EraAttempt,
  options: ConnectOptions,
  describe: (message: string) => string,
): Promise<Connection> {
  // The probe's own timeout never decides the era: the connect's limit ends the wait (see PingBehindDiscover).
  const probe = options.timeoutMs === undefined ? {} : { probe: { timeoutMs: Math.max(1, options.timeoutMs) } };
  // No input to give: a server's input_required is the call's answer, reported once, not fulfilled
  // and the call sent again (the SDK's default, up to ten rounds, and each a run of the tool).
  const client = new Client(CLIENT_INFO, {
    capabilities: {},
    versionNegotiation: { mode: era.mode, ...probe },
    inputRequired: { autoFulfill: false },
  });
  let fail: (error: Error) => void = () => {};
  const broken = new Promise<never>((_resolve, reject) => {
    fail = reject;
  });
  broken.catch(() => {});
  let exceededLimit: number | undefined;
  client.onerror = (error) => {
    // A dead HTTP server shows only here: the SDK waits on for answers from its broken stream.
    if (connected && isBrokenStream(kind, error))
      fail(new ConnectFailure(`the server's event stream broke: ${errorMessage(error).slice(0, 160)}`));
  };
  const buffer = (transport as { readBuffer?: unknown }).readBuffer;
  if (buffer instanceof StdioReadBuffer) {
    buffer.onStray = options.onStrayOutput;
    buffer.onFault = (error) => {
      if (error instanceof MessageTooLarge) {
        exceededLimit = error.limit;
        fail(new ConnectFailure(overLimitMessage(error.limit)));
      }
      // A message lost to other output: the call waiting for it would wait out its whole timeout.
      else fail(new ConnectFailure(describe(error.message)));
    };
  }
  // While connecting, a close rejects the pending request itself, with a better cause.
  let connected = false;
  let closed = false;
  client.onclose = () => {
    closed = true;
    if (connected) fail(new ConnectFailure(describe("the server closed the connection")));
  };

  // The SDK does not pass the signal to transport.start(), and an SSE start waits for its
  // endpoint event with no limit of its own: the abort must end the wait here.
  const aborted = new Promise<never>((_resolve, reject) => {
    const onAbort = () => reject(new ConnectFailure(describe(abortedMessage(options))));
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => {});
  try {
    const opening = (async () => {
      const wire = kind === "stdio" ? new PingBehindDiscover(transport) : transport;
      await client.connect(wire, { signal: options.signal, ...(era.prior === undefined ? {} : { prior: era.prior }) });
      if (era.confirm) await client.discover({ signal: options.signal });
    })();
    await Promise.race([opening, broken, aborted]);
    connected = true;
  } catch (error) {
    await client.close().catch(() => {});
    // The client's close does not reach a transport it never attached, and a server left running
    // would outlive the command. Not awaited: stopping a stdio server may take seconds (stopServer).
    transport.close().catch(() => {});
    const explained = explainConnectError(error, describe, closed);
    const refusal = options.signal.aborted ? undefined : refusalOf(error, era);
    throw refusal === undefined ? explained : new EraRefused(refusal, explained);
  }
  const protocolVersion = client.getNegotiatedProtocolVersion();
  const modern = client.getProtocolEra() === "modern";
  const discover = modern ? client.getDiscoverResult() : undefined;
  // After an adopted verdict the client keeps the placeholder; the confirming discover has the server's own.
  const discovered = discover?._meta?.[SERVER_INFO_META_KEY] as Implementation | undefined;
  const serverInfo = client.getServerVersion() ?? discovered ?? (modern ? { name: "", version: "" } : undefined);
  if (serverInfo === undefined || protocolVersion === undefined) {
    await client.close().catch(() => {});
    throw new ConnectFailure(describe("the server did not complete initialization"));
  }
  // The SDK numbers requests from this counter as it sends them; a span records the number.
  const counter = client as unknown as { _requestMessageId?: unknown };
  return {
    client,
    transport: kind,
    serverInfo,
    capabilities: (era.confirm ? discover?.capabilities : undefined) ?? client.getServerCapabilities() ?? {},
    protocolVersion,
    era: modern ? "modern" : "legacy",
    instructions: client.getInstructions() ?? discover?.instructions,
    broken,
    get closed() {
      return closed;
    },
    get exceededLimit() {
      return exceededLimit;
    },
    facts: {
      transport: kind === "stdio" ? "pipe" : kind === "custom" ? undefined : "tcp",
      protocolVersion,
      get sessionId() {
        return transport.sessionId;
      },
    },
    nextRequestId: () => (typeof counter._requestMessageId === "number" ? counter._requestMessageId : undefined),
    get onStrayOutput() {
      return buffer instanceof StdioReadBuffer ? buffer.onStray : undefined;
    },
    set onStrayOutput(tell) {
      if (buffer instanceof StdioReadBuffer) buffer.onStray = tell;
    },
    close: async () => {
      client.onclose = () => {};
      closed = true;
      await client.close().catch(() => {});
      // Lines with no message after them (a server that only printed before it was closed) are told now.
      if (buffer instanceof StdioReadBuffer) buffer.end();
    },
  };
}

/** Why a connect's signal fired: its time ran out (a TimeoutError reason), or its caller gave up. */
function abortedMessage(options: ConnectOptions): string {
  const reason: unknown = options.signal.reason;
  if (!(reason instanceof Error && reason.name === "TimeoutError")) return "connecting was aborted";
  return options.timeoutMs === undefined ? "timed out" : `timed out after ${options.timeoutMs} ms`;
}

/** `closed`: whether the transport really closed (a server may answer a request with its own error). */
function explainConnectError(error: unknown, describe: (message: string) => string, closed: boolean): Error {
  if (error instanceof ConnectFailure) return error;
  if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed && closed)
    return new ConnectFailure(describe("the server closed the connection"));
  // A server that died before the first message was written closed its input: the write finds no one to take it.
  if (error instanceof SdkError && error.code === SdkErrorCode.NotConnected)
    return new ConnectFailure(describe("the server closed the connection"));
  if (error instanceof ProtocolError && error.code === ProtocolErrorCode.UnsupportedProtocolVersion)
    return new ConnectFailure(describe(`the server refused the protocol version offered: ${firstLine(error.message)}`));
  // Over HTTP a 2025-era request's JSON-RPC error comes in a 400: it is the server's answer, no reason to try HTTP+SSE.
  const answer = error instanceof SdkHttpError && error.status === 400 ? jsonRpcErrorIn(error) : undefined;
  if (answer !== undefined)
    return new ConnectFailure(
      answer.code === ProtocolErrorCode.UnsupportedProtocolVersion
        ? `the server refused the protocol version offered: ${firstLine(answer.message)}`
        : `the server answered with JSON-RPC error ${answer.code}: ${firstLine(answer.message)}`,
    );
  const status =
    error instanceof UnauthorizedError
      ? 401
      : error instanceof SdkHttpError
        ? error.status
        : error instanceof SseError
          ? error.code
          : undefined;
  if (status === 401 || status === 403) {
    const reason = status === 401 ? "Unauthorized" : "Forbidden";
    return new HttpFailure(status, `HTTP ${status} ${reason}: pass credentials, e.g. --header "Authorization: Bearer \${TOKEN}"`);
  }
  if (status !== undefined && status > 0) return new HttpFailure(status, `HTTP ${status}: ${firstLine((error as Error).message)}`);
  const network = networkCause(error);
  if (network !== undefined) return new ConnectFailure(`cannot reach the server: ${network}`);
  if ((error as NodeJS.ErrnoException).code === "ENOENT") return error as Error;
  return new ConnectFailure(describe(errorMessage(error)));
}

/**
 * fetch reports network failures as TypeError("fetch failed") with the real reason in `cause`;
 * the SDK may wrap that in errors of its own (a failed negotiation probe). The reason, if any.
 */
function networkCause(error: unknown): string | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    const cause = current.cause as { code?: string; message?: string } | undefined;
    if (current instanceof TypeError && cause) return cause.code ?? cause.message;
  }
  return undefined;
}

/**
 * What a server's last stderr output says: the error line of a crash (`SyntaxError: …`,
 * `Error: …`; the stack after it and Node's version line are noise), else its last lines.
 */
function stderrSummary(stderr: string): string {
  const lines = stderr
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line !== "");
  const error = lines.findLast((line) => /^(?:[A-Z][\w$]*)?(?:Error|Exception)(?: \[[\w-]+\])?: /.test(line));
  return (
    error ??
    lines
      .filter((line) => !/^\s+at /.test(line))
      .slice(-3)
      .join(" | ")
  );
}

/**
 * Whether an HTTP transport lost the stream its answers come on: Streamable HTTP reports a
 * response stream cut off with this text (and no reconnect for a POST's stream), HTTP+SSE any
 * failure of its one event stream as an SseError.
 */
function isBrokenStream(kind: TransportKind, error: Error): boolean {
  if (kind === "streamable-http") return error.message.startsWith("SSE stream disconnected:");
  return kind === "sse" && error instanceof SseError;
}

export function overLimitMessage(limit: number): string {
  return `the server wrote a message over the stdio limit of ${limit} bytes (${(limit / 2 ** 20).toFixed(1)} MiB); raise it with maxMessageBytes (CLI: --max-message-bytes)`;
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
