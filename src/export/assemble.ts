import { readFile } from "node:fs/promises";
import { carryInferred } from "../bundle/carry-inferred.js";
import { findSchemaWarnings, formatWarning } from "../bundle/schema-warnings.js";
import { canonicalBundle } from "../bundle/serialize.js";
import { unlistedToolsOf } from "../bundle/tool-tags.js";
import type { Bundle, BundleServer } from "../bundle/types.js";
import { parseSchemaFile } from "../bundle-files/read.js";
import { count } from "../count.js";

/**
 * The bundle an export writes from the servers it listed: canonical, keeping the inferred blocks of
 * the bundle it replaces (`previous`), with a warning line for each schema problem it carries on
 * and for each server whose listing held tools back.
 */
export function assembleBundle(
  servers: readonly BundleServer[],
  previous: readonly BundleServer[] | undefined,
): { bundle: Bundle; warnings: string[] } {
  const bundle = carryInferred(canonicalBundle(servers), previous === undefined ? undefined : canonicalBundle(previous));
  const warnings = [
    ...bundle.servers.flatMap(findSchemaWarnings).map(formatWarning),
    ...bundle.servers.flatMap(duplicateToolNames),
    ...bundle.servers.flatMap(firstListingOnly),
  ];
  return { bundle, warnings };
}

function duplicateToolNames(server: BundleServer): string[] {
  const names = server.tools.map((tool) => tool.name);
  const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  return repeated.map((name) => `server "${server.id}" lists tool "${name}" more than once`);
}

/**
 * Export never calls tools (servers are untrusted), so a registerFunctions server with a shortened
 * first listing exports only that listing: said here, so that generate and inspect lacking the
 * rest is not a surprise. Only pmcp's own marker counts; other servers' list changes are not guessed at.
 */
function firstListingOnly(server: BundleServer): string[] {
  for (const tool of server.tools) {
    const unlisted = unlistedToolsOf(tool._meta);
    if (unlisted === undefined) continue;
    return [
      `server "${server.id}" listed ${count(server.tools.length - 1, "tool")} first and keeps ${unlisted} more behind "${tool.name}" ` +
        `(registerFunctions' listing): the bundle holds the first listing only; export a server registered with listing "all" for every tool`,
    ];
  }
  return [];
}

/** The bundle being replaced, whose inferred blocks a re-export keeps; none when there is no readable one. */
export async function serversOnDisk(path: string): Promise<BundleServer[] | undefined> {
  const text = await readFile(path, "utf8").catch(() => undefined);
  return text === undefined ? undefined : serversIn(path, text);
}

/** The servers of an existing file, or none when it cannot be read: it is then reported as changed. */
export function serversIn(path: string, text: string): BundleServer[] {
  try {
    return parseSchemaFile(path, text).bundle.servers;
  } catch {
    return [];
  }
}
