/**
 * @pmcp-codegen/runtime: what generated clients import. Only the MCP client package, zod and re2js
 * (cross-spawn and signal-exit once a stdio server is started), plus @opentelemetry/api when the
 * application has it and proper-lockfile once observing; never generator or CLI code, and no
 * child_process until a stdio server is connected (a test checks the built import graph).
 */

/**
 * The zod (4) the runtime is built on: generated files import `z` from here, so they get the zod
 * their parsers were written for whatever zod the application itself has at its top level.
 */
export { z } from "zod";
export { BrandedError } from "./branded-error.js";
export type { Observed } from "./call-result.js";
export type { CallOptions, CompositionClientOptions, ResultCall, ServerEntry, ToolCall, WithResult } from "./composition-client.js";
export { CompositionClient } from "./composition-client.js";
export type { StrayOutput } from "./endpoints/stdio-read-buffer.js";
export {
  AbortError,
  ArgumentError,
  CompositionCallError,
  CompositionError,
  ConfigurationError,
  ConnectionError,
  InvalidResponseError,
  LocalCallError,
  OutputValidationError,
  ProtocolCallError,
  ServerNotFoundError,
  TimeoutError,
  ToolCallError,
  TransportError,
} from "./errors.js";
export type { JsonValue } from "./json-value.js";
export { jsonEquals } from "./json-value.js";
export type { ObservationHeader, ObservationLog, Sample } from "./observation-log.js";
export { observationPath, parseObservationLog } from "./observation-log.js";
export type { ObserveOptions } from "./observer.js";
export { ObservationRecorder, redactValue } from "./observer.js";
export { UnsupportedPatternError } from "./pattern.js";
export { ParsedResult, ToolResult } from "./tool-result.js";
