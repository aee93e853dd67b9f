/**
 * @pmcp-codegen/runtime/internal/servers: reaching servers, for pmcp-codegen's export and
 * discovery: config files, connecting, reading a tools/call result. No compatibility promise,
 * as for `internal`.
 */

export { CallResult, observedResult, throwIfError } from "./call-result.js";
export { adoptConnection } from "./composition-client.js";
export type { ServerEntry } from "./endpoints/config-file.js";
export {
  httpTarget,
  ProtocolChoiceSchema,
  parseUrl,
  readConfigFile,
  ServerEntrySchema,
  sourcesFromEntries,
} from "./endpoints/config-file.js";
export type { Connection, ConnectOptions, TransportKind } from "./endpoints/connect.js";
export { ConnectFailure, connect, connectTransport } from "./endpoints/connect.js";
export type { ToolListing } from "./endpoints/list-tools.js";
export { listAllTools } from "./endpoints/list-tools.js";
export type { StrayOutput } from "./endpoints/stdio-read-buffer.js";
export { strayOutputWarning } from "./endpoints/stdio-read-buffer.js";
