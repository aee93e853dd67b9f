// How servers are named: the default id from serverInfo.name, and the one rule against two servers with one id.

/** PMCP's default server id: the server's name in lowercase, each run of other characters one `-`. */
export function slugServerId(serverName: string): string {
  const slug = serverName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return slug === "" ? "server" : slug;
}

/** A server as the one duplicate-id rule sees it: its id, and how the user named it, for the message. */
export interface NamedServer {
  id: string;
  label?: string | undefined;
}

/**
 * The one rule for server ids: two servers may not share one (each becomes a module, a file and a
 * key). The message for the first id given twice, naming both servers when their labels say more; else undefined.
 */
export function duplicateIdProblem(servers: readonly NamedServer[]): string | undefined {
  const seen = new Map<string, NamedServer>();
  for (const server of servers) {
    const other = seen.get(server.id);
    if (other !== undefined) {
      const both = other.label !== undefined && server.label !== undefined ? ` (${other.label} and ${server.label})` : "";
      return `two servers have the id "${server.id}"${both}; name them with --id or a --config file`;
    }
    seen.set(server.id, server);
  }
  return undefined;
}
