import type { z } from "zod";

/**
 * Every failure of a composed call, mirroring PMCP's CompositionError variants. Each
 * carries the server id and tool name, and a stable `code` for logs and switches.
 */
export abstract class CompositionError extends Error {
  abstract readonly code: string;

  constructor(
    message: string,
    readonly serverId: string,
    readonly toolName: string,
    options?: { cause?: unknown },
  ) {
    super(`${serverId}/${toolName}: ${message}`, options);
  }
}

/** The server id is not in the CompositionClient's configuration. */
export class ServerNotFoundError extends CompositionError {
  readonly code = "SERVER_NOT_FOUND";
  override readonly name = "ServerNotFoundError";
}

/** The server could not be started, reached or initialized. */
export class ConnectionError extends CompositionError {
  readonly code = "CONNECTION_FAILED";
  override readonly name = "ConnectionError";
}

/** The connection broke while the call was in flight. */
export class TransportError extends CompositionError {
  readonly code = "TRANSPORT";
  override readonly name = "TransportError";
}

/** The call took longer than its timeout. */
export class TimeoutError extends CompositionError {
  readonly code = "TIMEOUT";
  override readonly name = "TimeoutError";
}

/** The tool ran and reported failure (`isError`), or the server answered with a JSON-RPC error. */
export class ToolCallError extends CompositionError {
  readonly code = "TOOL_CALL_FAILED";
  override readonly name = "ToolCallError";

  constructor(
    serverId: string,
    toolName: string,
    /** The text content the tool returned with its error. */
    readonly text: string,
    options?: { cause?: unknown },
  ) {
    super(text === "" ? "the tool reported an error" : text, serverId, toolName, options);
  }
}

/** Neither `structuredContent` nor JSON text came back. */
export class InvalidResponseError extends CompositionError {
  readonly code = "INVALID_RESPONSE";
  override readonly name = "InvalidResponseError";

  constructor(message: string, serverId: string, toolName: string, readonly raw: unknown) {
    super(message, serverId, toolName);
  }
}

/** The result did not match the tool's output schema. */
export class OutputValidationError extends CompositionError {
  readonly code = "OUTPUT_VALIDATION";
  override readonly name = "OutputValidationError";

  constructor(
    serverId: string,
    toolName: string,
    /** Each problem with its JSON path, e.g. `{ path: ["items", 0, "quantity"], message: "..." }`. */
    readonly issues: readonly z.core.$ZodIssue[],
    /** The value as the server sent it. */
    readonly raw: unknown,
  ) {
    const first = issues[0];
    const where = first && first.path.length > 0 ? ` at ${first.path.map(String).join(".")}` : "";
    super(`result does not match the output schema${where}: ${first?.message ?? "invalid"}`, serverId, toolName);
  }
}
