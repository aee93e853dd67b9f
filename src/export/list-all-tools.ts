import { type Connection, listAllTools as listPages, type ToolListing } from "@pmcp-codegen/runtime/internal/servers";
import { PmcpError } from "../errors.js";

export type { ToolListing };

/** Every tool object of a server as sent, following `nextCursor`; a server that breaks the listing fails it with SERVER_FAILED. */
export function listAllTools(connection: Connection, signal: AbortSignal): Promise<ToolListing> {
  return listPages(connection, signal, (message) => new PmcpError("SERVER_FAILED", message));
}
