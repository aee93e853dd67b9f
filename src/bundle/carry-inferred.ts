import type { Bundle } from "./types.js";

/**
 * A re-export keeps what `pmcp schema infer` learned: each server's inferred blocks from
 * the bundle being replaced, for the tools it still lists. Observations outlive releases.
 */
export function carryInferred(next: Bundle, previous: Bundle | undefined): Bundle {
  if (previous === undefined) return next;
  const learned = new Map(previous.servers.map((server) => [server.id, server.inferred ?? []]));
  return {
    ...next,
    servers: next.servers.map((server) => {
      const names = new Set(server.tools.map((tool) => tool.name));
      const inferred = (learned.get(server.id) ?? []).filter((block) => names.has(block.tool));
      return inferred.length === 0 ? server : { ...server, inferred };
    }),
  };
}
