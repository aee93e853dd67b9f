import { type JSONRPCMessage, parseJSONRPCMessage } from "@modelcontextprotocol/client";

/** A message from the server outgrew the read buffer: the answer arrived, too large to read. */
export class MessageTooLarge extends Error {
  override readonly name = "MessageTooLarge";

  constructor(readonly limit: number) {
    super(`a message is over the stdio limit of ${limit} bytes`);
  }
}

/** A line on stdout that is not a JSON-RPC message: the server broke the protocol (stdout is its channel alone). */
export class NotJsonRpc extends Error {
  override readonly name = "NotJsonRpc";
}

/** What an answer to a request carried as its `result` when that was not an object (a JSON-RPC violation). */
export class NonObjectResult {
  constructor(readonly value: unknown) {}
}

/**
 * Splits a stdio server's output into JSON-RPC messages, as the SDK's ReadBuffer does, with
 * three differences. A line that is not JSON-RPC throws a NotJsonRpc (v2's buffer skips lines
 * that are not JSON, which hid a server printing to stdout until a call timed out). An answer whose `result` is not an object (`5`, `null`) becomes an error
 * answer to that request only, its data a NonObjectResult: the SDK's schema refuses the whole
 * line, which closed the connection under every call in flight. And a message over the limit
 * throws a MessageTooLarge, which names the limit.
 */
export class StdioReadBuffer {
  #buffer: Buffer | undefined;
  /**
   * Told of each fault as it is thrown: the SDK hands what the buffer throws to whoever holds the
   * transport's `onerror` at the time, which during version negotiation is not the client.
   */
  onFault: ((error: MessageTooLarge | NotJsonRpc) => void) | undefined;

  constructor(readonly maxBytes: number) {}

  append(chunk: Buffer): void {
    if ((this.#buffer?.length ?? 0) + chunk.length > this.maxBytes) {
      this.clear();
      throw this.#fault(new MessageTooLarge(this.maxBytes));
    }
    this.#buffer = this.#buffer === undefined ? chunk : Buffer.concat([this.#buffer, chunk]);
  }

  readMessage(): JSONRPCMessage | null {
    const index = this.#buffer?.indexOf("\n") ?? -1;
    if (this.#buffer === undefined || index === -1) return null;
    const line = this.#buffer.toString("utf8", 0, index).replace(/\r$/, "");
    this.#buffer = this.#buffer.subarray(index + 1);
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      throw this.#fault(new NotJsonRpc((error as Error).message));
    }
    try {
      return parseJSONRPCMessage(json);
    } catch {
      // Not a message as the SDK reads them: an answer with a non-object result is still one.
    }
    const answer = json as { jsonrpc?: unknown; id?: unknown; result?: unknown; error?: unknown } | null;
    const isAnswer =
      typeof answer === "object" &&
      answer !== null &&
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
    throw this.#fault(new NotJsonRpc(`not a JSON-RPC message: ${line.slice(0, 80)}`));
  }

  #fault<E extends MessageTooLarge | NotJsonRpc>(error: E): E {
    this.onFault?.(error);
    return error;
  }

  clear(): void {
    this.#buffer = undefined;
  }
}
