import { isDeepStrictEqual } from "node:util";
import { compare } from "./serialize.js";
import type { Bundle, BundleServer, InferredTool } from "./types.js";

/**
 * `bundle` with the inferred blocks of `from` in place of its own for the same tools, for the tools
 * it lists: a re-export keeps what `pmcp schema infer` learned (observations outlive releases), and
 * `serve exec --learn` puts what it learned into the bundle in memory and on disk. A block drawn
 * from fewer results than the one it would replace does not replace it: a session learning in a
 * scratch folder starts from no observations and knows less until it has seen more. Blocks of
 * servers and tools that `from` does not name stay as they are, and `bundle` itself is returned
 * when no block changes.
 */
export function carryInferred<B extends Bundle>(bundle: B, from: Bundle | undefined): B {
  if (from === undefined) return bundle;
  const learned = new Map(from.servers.map((server) => [server.id, server.inferred ?? []]));
  const servers = bundle.servers.map((server) => withBlocks(server, learned.get(server.id) ?? []));
  return servers.every((server, index) => server === bundle.servers[index]) ? bundle : { ...bundle, servers };
}

/** The server itself when no block changes: a bundle file's other servers keep their bytes. */
function withBlocks(server: BundleServer, blocks: readonly InferredTool[]): BundleServer {
  const names = new Set(server.tools.map((tool) => tool.name));
  const kept = new Map((server.inferred ?? []).map((block) => [block.tool, block]));
  let changed = false;
  for (const block of blocks) {
    const current = kept.get(block.tool);
    if (!names.has(block.tool) || isDeepStrictEqual(current, block) || (current !== undefined && current.seen > block.seen)) continue;
    kept.set(block.tool, block);
    changed = true;
  }
  return changed ? { ...server, inferred: [...kept.values()].sort((a, b) => compare(a.tool, b.tool)) } : server;
}
