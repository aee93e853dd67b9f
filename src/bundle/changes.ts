import { isDeepStrictEqual } from "node:util";
import type { Bundle, BundleServer } from "./types.js";

/**
 * What differs between two bundles, server by server and tool by tool, in short lines
 * for the `--check` drift gate. Breaking-change analysis is the job of `pmcp schema diff`.
 */
export function summarizeChanges(before: Bundle, after: Bundle): string[] {
  const lines: string[] = [];
  const old = new Map(before.servers.map((server) => [server.id, server]));
  const current = new Map(after.servers.map((server) => [server.id, server]));
  for (const id of old.keys()) if (!current.has(id)) lines.push(`server "${id}" removed`);
  for (const [id, server] of current) {
    const previous = old.get(id);
    if (previous === undefined) lines.push(`server "${id}" added (${server.tools.length} tools)`);
    else lines.push(...serverChanges(previous, server));
  }
  return lines;
}

function serverChanges(before: BundleServer, after: BundleServer): string[] {
  const { tools: oldTools, ...oldMeta } = before;
  const { tools: newTools, ...newMeta } = after;
  const prefix = `server "${after.id}"`;
  const lines: string[] = [];
  if (!isDeepStrictEqual(oldMeta, newMeta)) lines.push(`${prefix}: server info changed`);
  const old = new Map(oldTools.map((tool) => [tool.name, tool]));
  const current = new Map(newTools.map((tool) => [tool.name, tool]));
  const added = [...current.keys()].filter((name) => !old.has(name));
  const removed = [...old.keys()].filter((name) => !current.has(name));
  const changed = [...current.keys()].filter((name) => old.has(name) && !isDeepStrictEqual(old.get(name), current.get(name)));
  if (added.length) lines.push(`${prefix}: tools added: ${added.join(", ")}`);
  if (removed.length) lines.push(`${prefix}: tools removed: ${removed.join(", ")}`);
  if (changed.length) lines.push(`${prefix}: tools changed: ${changed.join(", ")}`);
  return lines;
}
