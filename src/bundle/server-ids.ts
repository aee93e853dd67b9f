import { PmcpError } from "../errors.js";
import { type BundleServer, ServerIdSchema } from "./types.js";

/**
 * Refuses a server whose id the bundle schema does not allow: an id becomes a file name, a
 * module path and an identifier in every emitter, so only checked ids get that far.
 */
export function checkServerIds(servers: readonly Pick<BundleServer, "id">[]): void {
  for (const server of servers) {
    if (!ServerIdSchema.safeParse(server.id).success)
      throw new PmcpError("INVALID_INPUT", `server id ${JSON.stringify(server.id)} is not a valid server id`);
  }
}
