import {
  isJSONRPCErrorResponse,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type Transport,
  type TransportSendOptions,
} from "@modelcontextprotocol/client";

/**
 * How long after answering the ping a server may still answer the `server/discover` it read before
 * it (a server that handles requests concurrently may answer them out of order).
 */
const DISCOVER_GRACE_MS = 2_000;

const PING_ID = "pmcp-era-ping";

/**
 * A stdio connection on which the era probe's verdict depends on what the server answers, never on
 * when. The server's input is a pipe: requests wait there until it starts, and it reads them in
 * order. Behind the first `server/discover` goes a `ping`, the one request a 2025 client may send
 * before `initialize`, with the same `_meta` envelope (a server of both eras stays in the modern
 * era it chose). A server that answers the ping and not the `server/discover` it read before
 * ignores requests before `initialize`: its silence becomes a JSON-RPC error to the probe, and the
 * SDK falls back to the 2025 handshake on this connection. A server that answers nothing is waited
 * for until the connect's own time limit.
 *
 * Neither `pid` nor `stderr` is passed through: the SDK knows a stdio transport by them, and takes
 * a stdio server's silence until the probe's own timeout as "speaks 2025", which a slow start is not.
 */
export class PingBehindDiscover implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  /** The first `server/discover`, while it waits for its answer. */
  #probe: string | number | undefined;
  #sentProbe = false;
  /** Probes answered here on the server's behalf: their late answers are dropped. */
  readonly #refused = new Set<string | number>();
  #grace: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly inner: Transport) {}

  start(): Promise<void> {
    this.inner.onmessage = (message, extra) => this.#receive(message, extra);
    this.inner.onerror = (error) => this.onerror?.(error);
    this.inner.onclose = () => {
      clearTimeout(this.#grace);
      this.onclose?.();
    };
    return this.inner.start();
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if (this.#sentProbe || !isJSONRPCRequest(message) || message.method !== "server/discover") return this.inner.send(message, options);
    this.#sentProbe = true;
    this.#probe = message.id;
    await this.inner.send(message, options);
    // Its failure shows on the probe itself (a closed connection).
    this.inner.send({ jsonrpc: "2.0", id: PING_ID, method: "ping", params: message.params }).catch(() => {});
  }

  close(): Promise<void> {
    clearTimeout(this.#grace);
    return this.inner.close();
  }

  #receive(message: JSONRPCMessage, extra?: MessageExtraInfo): void {
    if (isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message)) {
      const id = message.id;
      if (id === PING_ID) {
        if (this.#probe !== undefined) this.#grace = setTimeout(() => this.#refuseProbe(), DISCOVER_GRACE_MS);
        return;
      }
      if (id !== undefined && this.#refused.has(id)) return;
      if (id === this.#probe) {
        this.#probe = undefined;
        clearTimeout(this.#grace);
      }
    }
    this.onmessage?.(message, extra);
  }

  #refuseProbe(): void {
    const id = this.#probe;
    if (id === undefined) return;
    this.#probe = undefined;
    this.#refused.add(id);
    this.onmessage?.({
      jsonrpc: "2.0",
      id,
      error: { code: -32601, message: "the server answered ping before initialize, but not server/discover" },
    });
  }
}
