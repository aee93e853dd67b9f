/**
 * @pmcp-codegen/runtime/internal: what the pmcp-codegen CLI and library share with the
 * runtime (connecting, server sources, config files, JSON files, atomic writes). It carries
 * no compatibility promise: it changes with pmcp-codegen, in any release.
 */

export { CallResult, resultValue } from "./call-result.js";
export type { ServerEntry } from "./endpoints/config-file.js";
export { httpTarget, parseUrl, readConfigFile, ServerEntrySchema, sourcesFromEntries } from "./endpoints/config-file.js";
export type { Connection, ConnectOptions, TransportKind } from "./endpoints/connect.js";
export { ConnectFailure, connect, connectTransport } from "./endpoints/connect.js";
export { interpolate, interpolateRecord } from "./endpoints/interpolate.js";
export { redactUrl, redactWrittenUrl } from "./endpoints/redact.js";
export { ServerIdSchema } from "./endpoints/server-id.js";
export type { HttpSource, HttpTransportChoice, ServerSource, StdioSource } from "./endpoints/source.js";
export { errorMessage } from "./error-message.js";
export type { FileToWrite } from "./fs/atomic-write.js";
export { writeFilesAtomically } from "./fs/atomic-write.js";
export type { FormatIssuesOptions } from "./issues.js";
export { DEFAULT_MAX_ISSUES, formatIssues, formatJsonPath } from "./issues.js";
export type { JsonFileErrorCode, JsonFileOptions } from "./json-file.js";
export { JsonFileError, parseJsonText, parseJsonValue, readJsonFile } from "./json-file.js";
export { formatObservationLog } from "./observation-log.js";
