import { type JSONRPCMessage, parseJSONRPCMessage } from "@modelcontextprotocol/client";
import { printable } from "../error-message.js";

/** The longest start of a server's line a message quotes. */
const QUOTED_CHARS = 80;

/** A message from the server outgrew the read buffer: the answer arrived, too large to read. */
export class MessageTooLarge extends Error {
  override readonly name = "MessageTooLarge";

  constructor(readonly limit: number) {
    super(`a message is over the stdio limit of ${limit} bytes`);
  }
}

/**
 * A line on stdout that was meant as a message and cannot be read as one: a JSON-RPC message that
 * other output broke, or a malformed one. The message it was is lost, so the connection is no good.
 */
export class BrokenMessage extends Error {
  override readonly name = "BrokenMessage";
}

/** Lines a stdio server wrote to stdout that are not JSON-RPC (a banner, a log line), skipped. */
export interface StrayOutput {
  /** The start of the first of them as the server wrote it (untrusted text), at most 80 characters, with `…` where cut. */
  firstLine: string;
  /** How many lines were skipped, the first among them. */
  lines: number;
}

/** What the server answered with when its `result` was not an object (a JSON-RPC violation). */
export class NonObjectResult {
  constructor(readonly value: unknown) {}
}

/**
 * Splits a stdio server's output into JSON-RPC messages, as the SDK's ReadBuffer does, with these
 * differences.
 *
 * A line that is not JSON-RPC is skipped, as v2's buffer and the MCP Inspector skip it (servers print
 * banners such as `Starting Time MCP server...` to stdout), and tallied in `stray` for a warning;
 * blank lines are skipped uncounted. But a line that looks like a broken message throws a
 * BrokenMessage: one that is not JSON yet begins with `{"` or holds `"jsonrpc"` (output written
 * without a newline before, into or after a message), or JSON with a `jsonrpc` member (an object, or
 * a batch holding one) that is not a message. Skipping it would lose the answer a call waits for.
 *
 * An answer whose `result` is not an object (`5`, `null`) becomes an error answer to that request
 * only, its data a NonObjectResult: the SDK's schema refuses the whole line, which closed the
 * connection under every call in flight. And a line over the limit throws a MessageTooLarge, which
 * names the limit; the rest of that line is dropped, not read as a line of its own.
 */
export class StdioReadBuffer {
  #buffer: Buffer | undefined;
  /** Past a line over the limit: its rest is dropped, up to the newline that ends it. */
  #dropping = false;
  #stray: StrayOutput | undefined;
  #messages = 0;
  /**
   * Told of each fault as it is thrown: the SDK hands what the buffer throws to whoever holds the
   * transport's `onerror` at the time, which during version negotiation is not the client.
   */
  onFault: ((error: MessageTooLarge | BrokenMessage) => void) | undefined;
  /**
   * Told once, at the first message read after lines were skipped, of the lines skipped so far: a
   * banner is reported when the server starts talking, not when it stops, which for `pmcp dev` or
   * `serve exec` may be hours later. Lines skipped after it are counted in `stray` only.
   */
  onStray: ((stray: StrayOutput) => void) | undefined;
  #strayTold = false;

  constructor(readonly maxBytes: number) {}

  /** The lines skipped so far, if any. */
  get stray(): StrayOutput | undefined {
    return this.#stray === undefined ? undefined : { ...this.#stray };
  }

  /** How many messages were read so far. */
  get messages(): number {
    return this.#messages;
  }

  append(chunk: Buffer): void {
    let rest = chunk;
    if (this.#dropping) {
      const end = rest.indexOf("\n");
      if (end === -1) return;
      this.#dropping = false;
      rest = rest.subarray(end + 1);
    }
    if ((this.#buffer?.length ?? 0) + rest.length > this.maxBytes) {
      const end = rest.indexOf("\n");
      this.#buffer = end === -1 ? undefined : rest.subarray(end + 1);
      this.#dropping = end === -1;
      throw this.#fault(new MessageTooLarge(this.maxBytes));
    }
    this.#buffer = this.#buffer === undefined ? rest : Buffer.concat([this.#buffer, rest]);
  }

  readMessage(): JSONRPCMessage | null {
    for (;;) {
      const index = this.#buffer?.indexOf("\n") ?? -1;
      if (this.#buffer === undefined || index === -1) return null;
      const line = this.#buffer.toString("utf8", 0, index).replace(/\r$/, "");
      this.#buffer = this.#buffer.subarray(index + 1);
      if (line.trim() === "") continue;
      const message = this.#read(line);
      if (message !== undefined) {
        this.#messages++;
        if (this.#stray !== undefined) this.#tellStray();
        return message;
      }
    }
  }

  /** The message a line holds; undefined for a line skipped. */
  #read(line: string): JSONRPCMessage | undefined {
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      if (line.trimStart().startsWith('{"') || line.includes('"jsonrpc"'))
        throw this.#fault(new BrokenMessage(`a JSON-RPC message on stdout was broken by other output: ${quoteLine(line)}`));
      return this.#skip(line);
    }
    if (!mentionsJsonRpc(json)) return this.#skip(line);
    try {
      return parseJSONRPCMessage(json);
    } catch {
      // Not a message as the SDK reads them: an answer with a non-object result is still one.
    }
    const answer = json as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown };
    const isAnswer =
      answer.jsonrpc === "2.0" &&
      (typeof answer.id === "number" || typeof answer.id === "string") &&
      "result" in answer &&
      !("error" in answer);
    if (isAnswer && (typeof answer.result !== "object" || answer.result === null || Array.isArray(answer.result))) {
      const id = answer.id as number | string;
      return {
        jsonrpc: "2.0",
        id,
        error: { code: -32603, message: "the result is not an object", data: new NonObjectResult(answer.result) },
      };
    }
    throw this.#fault(new BrokenMessage(`the server wrote a malformed JSON-RPC message to stdout: ${quoteLine(line)}`));
  }

  #skip(line: string): undefined {
    if (this.#stray === undefined) this.#stray = { firstLine: startOf(line), lines: 1 };
    else this.#stray.lines++;
    return undefined;
  }

  /** Tells `onStray` of the lines skipped, if it was not told yet: at the first message after them, or at the end. */
  #tellStray(): void {
    if (this.#strayTold || this.#stray === undefined) return;
    this.#strayTold = true;
    this.onStray?.({ ...this.#stray });
  }

  /** The end of the server's output: lines skipped with no message after them are told now. */
  end(): void {
    this.#tellStray();
  }

  #fault<E extends MessageTooLarge | BrokenMessage>(error: E): E {
    this.onFault?.(error);
    return error;
  }

  clear(): void {
    this.#buffer = undefined;
  }
}

/** JSON meant as JSON-RPC: an object with a `jsonrpc` member, or a batch holding one. */
function mentionsJsonRpc(json: unknown): boolean {
  const isMessage = (value: unknown) => typeof value === "object" && value !== null && !Array.isArray(value) && "jsonrpc" in value;
  return isMessage(json) || (Array.isArray(json) && json.some(isMessage));
}

function startOf(line: string): string {
  return line.length > QUOTED_CHARS ? `${line.slice(0, QUOTED_CHARS)}…` : line;
}

/** The start of a server's line, quoted for a one-line message: escapes for quotes and control characters. */
function quoteLine(line: string): string {
  return printable(JSON.stringify(startOf(line)));
}

/** `"Starting Time MCP server..." and 2 more lines`: what a message says of stray output. */
export function describeStrayOutput(stray: StrayOutput): string {
  const quoted = printable(JSON.stringify(stray.firstLine));
  const more = stray.lines - 1;
  return more === 0 ? quoted : `${quoted} and ${more} more ${more === 1 ? "line" : "lines"}`;
}

/** The one warning of a server's stray output, for the CLI's commands and CompositionClient alike. */
export function strayOutputWarning(server: string, stray: StrayOutput): string {
  return `server "${server}": skipped output on stdout that is not JSON-RPC: ${describeStrayOutput(stray)}`;
}
