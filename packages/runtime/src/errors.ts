/**
 * Every failure the runtime reports, mirroring PMCP's CompositionError variants, each with
 * a stable `code` for logs and switches. Failures of a call name its server and tool (see
 * CompositionCallError), and are of one of two families, as the MCP SDK's errors are: this side
 * failed (LocalCallError) or the server's answer says so (ProtocolCallError). A
 * ConfigurationError happens before any call and names what it can.
 */

import type { z } from "zod";
import { BrandedError } from "./branded-error.js";
import { formatIssues } from "./issues.js";

/** The base of the runtime's errors: `serverId` and `toolName` name the server and tool, when known. */
export abstract class CompositionError extends BrandedError {
  readonly serverId: string | undefined;
  readonly toolName: string | undefined;

  constructor(message: string, serverId: string | undefined, toolName: string | undefined, options?: { cause?: unknown }) {
    super(serverId === undefined || toolName === undefined ? message : `${serverId}/${toolName}: ${message}`, options);
    this.serverId = serverId;
    this.toolName = toolName;
  }
}

/** The client's configuration is wrong: an entry, an unset `${VAR}`, a URL, an option, or the config file itself. */
export class ConfigurationError extends CompositionError {
  readonly code = "CONFIGURATION";
  override readonly name = "ConfigurationError";
  /** The config file the problem is in, when there is one. */
  readonly file: string | undefined;

  constructor(message: string, options?: { cause?: unknown; file?: string }) {
    super(message, undefined, undefined, options?.cause === undefined ? undefined : { cause: options.cause });
    this.file = options?.file;
  }
}

/** A failure of one call: always names the server and the tool. */
export abstract class CompositionCallError extends CompositionError {
  declare readonly serverId: string;
  declare readonly toolName: string;

  constructor(message: string, serverId: string, toolName: string, options?: { cause?: unknown }) {
    super(message, serverId, toolName, options);
  }
}

/** The call failed on this side: it was not sent, or no answer came (as the SDK's `SdkError`). */
export abstract class LocalCallError extends CompositionCallError {}

/** The server answered, and its answer is the failure: an error, or one that breaks the protocol or the tool's schema (as the SDK's `ProtocolError`). */
export abstract class ProtocolCallError extends CompositionCallError {}

/** The server id is not in the CompositionClient's configuration. */
export class ServerNotFoundError extends LocalCallError {
  readonly code = "SERVER_NOT_FOUND";
  override readonly name = "ServerNotFoundError";
}

/** The server could not be started, reached or initialized. */
export class ConnectionError extends LocalCallError {
  readonly code = "CONNECTION_FAILED";
  override readonly name = "ConnectionError";
}

/** The call's arguments cannot be sent as JSON (a number that is not finite, a BigInt, a cycle): nothing was sent, the connection is untouched. */
export class ArgumentError extends LocalCallError {
  readonly code = "INVALID_ARGUMENTS";
  override readonly name = "ArgumentError";
}

/** The connection broke while the call was in flight. */
export class TransportError extends LocalCallError {
  readonly code = "TRANSPORT";
  override readonly name = "TransportError";
}

/** The caller's AbortSignal ended the call, or the wait for its connection; `cause` is the signal's reason. */
export class AbortError extends LocalCallError {
  readonly code = "ABORTED";
  override readonly name = "AbortError";
}

/** The call took longer than its timeout. */
export class TimeoutError extends LocalCallError {
  readonly code = "TIMEOUT";
  override readonly name = "TimeoutError";
}

/** The tool ran and reported failure (`isError`), or the server answered with a JSON-RPC error. */
export class ToolCallError extends ProtocolCallError {
  readonly code = "TOOL_CALL_FAILED";
  override readonly name = "ToolCallError";

  constructor(
    serverId: string,
    toolName: string,
    /** The text content the tool returned with its error, or the message of the server's JSON-RPC error. */
    readonly text: string,
    options?: { cause?: unknown; rpcCode?: number },
  ) {
    super(text === "" ? "the tool reported an error" : text, serverId, toolName, options);
    this.rpcCode = options?.rpcCode;
  }

  /** The JSON-RPC error code when the server answered the call with an error rather than an `isError` result. */
  readonly rpcCode: number | undefined;
}

/** Neither `structuredContent` nor JSON text came back. */
export class InvalidResponseError extends ProtocolCallError {
  readonly code = "INVALID_RESPONSE";
  override readonly name = "InvalidResponseError";

  constructor(
    message: string,
    serverId: string,
    toolName: string,
    readonly raw: unknown,
  ) {
    super(message, serverId, toolName);
  }
}

/** The result did not match the tool's output schema. */
export class OutputValidationError extends ProtocolCallError {
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
    super(formatIssues("result does not match the output schema", issues), serverId, toolName);
  }
}
