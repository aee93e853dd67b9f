/**
 * @pmcp-codegen/runtime/internal/connect: connecting to a server, for pmcp-codegen's export and
 * discovery. No compatibility promise, as for `internal`.
 */

export type { Connection, ConnectOptions, TransportKind } from "./endpoints/connect.js";
export { ConnectFailure, connect, connectTransport } from "./endpoints/connect.js";
