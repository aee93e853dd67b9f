import { UnauthorizedError } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { SSEClientTransport, SseError } from "@modelcontextprotocol/sdk/client/sse.js";
import { StreamableHTTPClientTransport, StreamableHTTPError } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FetchLike, Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type Implementation, McpError, type ServerCapabilities } from "@modelcontextprotocol/sdk/types.js";
import { errorMessage } from "../error-message.js";
import { type ConnectionFacts, INSTRUMENTATION } from "../telemetry.js";
import type { HttpSource, ServerSource, StdioSource } from "./source.js";
import { MessageTooLarge, StdioReadBuffer } from "./stdio-read-buffer.js";

const CLIENT_INFO = { ...INSTRUMENTATION };
const STDERR_TAIL_BYTES = 2000;
/** The SDK's own limit for one stdio message. */
const DEFAULT_MAX_MESSAGE_BYTES = 10 * 2 ** 20;

export type TransportKind = "stdio" | "streamable-http" | "sse" | "custom";

/** An initialized session with one server. */
export interface Connection {
  client: Client;
  transport: TransportKind;
  serverInfo: Implementation;
  capabilities: ServerCapabilities;
  protocolVersion: string;
  instructions: string | undefined;
  /**
   * Rejects as soon as the server breaks the protocol (non-JSON on stdout) or the
   * connection closes; race it against each request so a broken server fails fast.
   */
  broken: Promise<never>;
  /** Whether the transport has closed: what tells the SDK's own "connection closed" error from a server's error -32000. */
  readonly closed: boolean;
  /**
   * The stdio message limit in bytes when the server wrote a message over it: the SDK then
   * closes the connection, though the answer did arrive, so the call must not be repeated.
   */
  readonly exceededLimit: number | undefined;
  /** What a call's span records about the connection. */
  readonly facts: ConnectionFacts;
  /** The JSON-RPC id the next request sent on this connection gets. */
  nextRequestId(): number | undefined;
  close(): Promise<void>;
}

export interface ConnectOptions {
  signal: AbortSignal;
}

/** Connects and initializes; for `auto` HTTP, falls back to HTTP+SSE when Streamable HTTP is refused. */
export async function connect(source: ServerSource, options: ConnectOptions): Promise<Connection> {
  if (source.kind === "stdio") return connectStdio(source, options);
  const connection = await connectHttp(source, options);
  const url = source.url;
  // The conventions want the host without the brackets an IPv6 address has in a URL.
  const address = url.hostname.replace(/^\[(.*)\]$/, "$1");
  connection.facts.server = { address, port: url.port === "" ? (url.protocol === "https:" ? 443 : 80) : Number(url.port) };
  return connection;
}

async function connectHttp(source: HttpSource, options: ConnectOptions): Promise<Connection> {
  if (source.transport === "sse") return connectWith(sseTransport(source), "sse", options);
  try {
    return await connectWith(streamableTransport(source), "streamable-http", options);
  } catch (error) {
    if (source.transport === "auto" && isLegacyServerRefusal(error) && !options.signal.aborted) {
      return connectWith(sseTransport(source), "sse", options);
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

async function connectStdio(source: StdioSource, options: ConnectOptions): Promise<Connection> {
  // Loaded here, not at the top: it pulls in child_process, which Deno, Bun and edge
  // runtimes serving HTTP clients may not have.
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const env = source.inheritEnv ? { ...definedEnv(process.env), ...source.env } : source.env;
  const transport = new StdioClientTransport({
    command: source.command,
    args: source.args,
    env,
    stderr: "pipe",
    ...(source.cwd === undefined ? {} : { cwd: source.cwd }),
  });
  // The SDK's transport reads through this field; its own buffer would close the connection
  // on a result that is not an object (see StdioReadBuffer).
  if (!("_readBuffer" in transport)) throw new Error("the MCP SDK's stdio transport has no _readBuffer: update connect.ts");
  (transport as unknown as { _readBuffer: StdioReadBuffer })._readBuffer = new StdioReadBuffer(
    source.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
  );
  // The SDK's send waits for 'drain' with a listener of its own whenever stdin is full: queued,
  // concurrent calls add one listener at a time (past ten, Node warns MaxListenersExceededWarning).
  const send = transport.send.bind(transport);
  let previous: Promise<unknown> = Promise.resolve();
  transport.send = (message) => {
    const sent = previous.then(() => send(message));
    previous = sent.catch(() => {});
    return sent;
  };
  let stderrTail = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-STDERR_TAIL_BYTES);
  });
  const withStderr = (message: string): string => {
    const tail = stderrSummary(stderrTail);
    return tail ? `${message} (stderr: ${tail})` : message;
  };
  try {
    return await connectWith(transport, "stdio", options, withStderr);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new ConnectFailure(`cannot start "${source.command}": command not found`);
    }
    throw error;
  }
}

/** Initializes over a transport the caller built (an in-process server, a test double). */
export function connectTransport(transport: Transport, options: ConnectOptions): Promise<Connection> {
  return connectWith(transport, "custom", options);
}

async function connectWith(
  transport: Transport,
  kind: TransportKind,
  options: ConnectOptions,
  describe: (message: string) => string = (message) => message,
): Promise<Connection> {
  const client = new Client(CLIENT_INFO, { capabilities: {} });
  let protocolVersion: string | undefined;
  // The SDK tells HTTP transports the negotiated version; capture it for every transport.
  const setVersion = transport.setProtocolVersion?.bind(transport);
  transport.setProtocolVersion = (version: string) => {
    protocolVersion = version;
    setVersion?.(version);
  };

  let fail: (error: Error) => void = () => {};
  const broken = new Promise<never>((_resolve, reject) => {
    fail = reject;
  });
  broken.catch(() => {});
  let exceededLimit: number | undefined;
  client.onerror = (error) => {
    // A dead HTTP server shows only here: the SDK waits on for answers from its broken stream.
    if (connected && isBrokenStream(kind, error))
      return fail(new ConnectFailure(`the server's event stream broke: ${errorMessage(error).slice(0, 160)}`));
    if (kind !== "stdio") return;
    if (error instanceof MessageTooLarge) {
      exceededLimit = error.limit;
      fail(new ConnectFailure(overLimitMessage(error.limit)));
    }
    // stdout is the protocol channel: anything there that is not JSON-RPC is a broken server (spec: MUST NOT).
    // After an oversized message the SDK reads on from its middle: that text is no fault of the server's.
    else if (exceededLimit === undefined && (error instanceof SyntaxError || error.name === "ZodError")) {
      fail(new ConnectFailure(describe(`server wrote something other than JSON-RPC to stdout: ${errorMessage(error).slice(0, 160)}`)));
    }
  };
  // While connecting, a close rejects the pending initialize request itself, with a better cause.
  let connected = false;
  let closed = false;
  client.onclose = () => {
    closed = true;
    if (connected) fail(new ConnectFailure(describe("the server closed the connection")));
  };

  // The SDK does not pass the signal to transport.start(), and an SSE start waits for its
  // endpoint event with no limit of its own: the abort must end the wait here.
  const aborted = new Promise<never>((_resolve, reject) => {
    const onAbort = () => reject(new ConnectFailure(describe("connecting was aborted (timed out)")));
    if (options.signal.aborted) onAbort();
    else options.signal.addEventListener("abort", onAbort, { once: true });
  });
  aborted.catch(() => {});
  try {
    await Promise.race([client.connect(transport, { signal: options.signal }), broken, aborted]);
    connected = true;
  } catch (error) {
    await client.close().catch(() => {});
    throw explainConnectError(error, describe, closed);
  }
  const serverInfo = client.getServerVersion();
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
    capabilities: client.getServerCapabilities() ?? {},
    protocolVersion,
    instructions: client.getInstructions(),
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
    close: async () => {
      client.onclose = () => {};
      closed = true;
      await client.close().catch(() => {});
    },
  };
}

/** `closed`: whether the transport really closed (a server may answer `initialize` with its own error -32000). */
function explainConnectError(error: unknown, describe: (message: string) => string, closed: boolean): Error {
  if (error instanceof ConnectFailure) return error;
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed && closed)
    return new ConnectFailure(describe("the server closed the connection"));
  const status =
    error instanceof UnauthorizedError ? 401 : error instanceof StreamableHTTPError || error instanceof SseError ? error.code : undefined;
  if (status === 401 || status === 403) {
    const reason = status === 401 ? "Unauthorized" : "Forbidden";
    return new HttpFailure(status, `HTTP ${status} ${reason}: pass credentials, e.g. --header "Authorization: Bearer \${TOKEN}"`);
  }
  if (status !== undefined && status > 0) return new HttpFailure(status, `HTTP ${status}: ${firstLine((error as Error).message)}`);
  // fetch reports network failures as TypeError("fetch failed") with the real reason in `cause`.
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (error instanceof TypeError && cause) return new ConnectFailure(`cannot reach the server: ${cause.code ?? cause.message}`);
  if ((error as NodeJS.ErrnoException).code === "ENOENT") return error as Error;
  return new ConnectFailure(describe(errorMessage(error)));
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

function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 200);
}

function definedEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
