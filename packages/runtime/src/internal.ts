/**
 * @pmcp-codegen/runtime/internal: what the pmcp-codegen CLI and library share with the
 * runtime that reads and writes files: JSON files and their issues, observation logs, server ids,
 * `${VAR}` interpolation, URL redaction, and the tool-call spans its servers record. It carries no
 * compatibility promise: it changes with pmcp-codegen, in any release. Reaching servers lives in
 * `internal/servers`, so that what only reads and writes files never loads the SDK's client or
 * builds the config-file schemas; atomic writes live in `internal/files`, so that writing loads
 * neither zod nor OpenTelemetry; JSON values and their equality live in `internal/json`, the
 * rules for numbers in `internal/numbers`, and text for messages and terminals in `internal/text`:
 * these load nothing at all.
 */

export { interpolate, interpolateRecord } from "./endpoints/interpolate.js";
export { isModernVersion } from "./endpoints/protocol-version.js";
export { redactUrl, redactWrittenUrl } from "./endpoints/redact.js";
export { ServerIdSchema } from "./endpoints/server-id.js";
export type { HttpSource, HttpTransportChoice, ServerSource, StdioSource } from "./endpoints/source.js";
export { errorMessage } from "./error-message.js";
export type { FormatIssuesOptions } from "./issues.js";
export { DEFAULT_MAX_ISSUES, formatIssues, formatJsonPath } from "./issues.js";
export type { JsonFileErrorCode, JsonFileOptions } from "./json-file.js";
export { JsonFileError, parseJsonText, parseJsonValue, readJsonFile } from "./json-file.js";
export type { ObservationLog, Sample } from "./observation-log.js";
export { formatObservationLog, parseObservationLog } from "./observation-log.js";
export type { BoundedSample, SampleCut } from "./sample-bounds.js";
export { boundSample, MAX_LOG_BYTES, MAX_SAMPLE_BYTES, MAX_SAMPLE_DEPTH } from "./sample-bounds.js";
export type { ConnectionFacts, Failure } from "./telemetry.js";
export { failureOf, INSTRUMENTATION, ToolCallSpan } from "./telemetry.js";
