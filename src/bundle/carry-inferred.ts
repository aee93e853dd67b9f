import { lowConsistencyFields } from "./field-consistency.js";
import { compare, jsonText } from "./serialize.js";
import type { Bundle, BundleServer, InferredTool } from "./types.js";

/**
 * `bundle` with the inferred blocks of `from` in place of its own for the same tools, for the tools
 * it lists: a re-export keeps what `pmcp schema infer` learned (observations outlive releases), and
 * `serve exec --learn` puts what it learned into the bundle in memory and on disk. A block drawn
 * from fewer results than the one it would replace does not replace it: a session learning in a
 * scratch folder starts from no observations and knows less until it has seen more. Nor does one
 * that differs only in its counts and times (see sameSubstance). Blocks of
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
    if (!names.has(block.tool) || (current !== undefined && (current.seen > block.seen || sameSubstance(current, block)))) continue;
    kept.set(block.tool, block);
    changed = true;
  }
  return changed ? { ...server, inferred: [...kept.values()].sort((a, b) => compare(a.tool, b.tool)) } : server;
}

/**
 * Whether two blocks give the same clients and report: quality, schema, drift, the kinds of answers
 * without JSON and the fields of low consistency. A new observation that only raises the counts
 * would otherwise rewrite the bundle and a module on every call, and an editor would check every
 * caller again for nothing.
 */
export function sameSubstance(a: InferredTool, b: InferredTool): boolean {
  return substance(a) === substance(b);
}

function substance(block: InferredTool): string {
  return jsonText([
    block.quality,
    block.schema,
    (block.drift ?? []).map((drift) => [drift.path, drift.message]),
    Object.keys(block.content ?? {}).sort(),
    lowConsistencyFields(block).map((field) => field.path),
  ]);
}
