import { BUNDLE_VERSION, type Bundle, type BundleServer } from "./types.js";

/**
 * The canonical bundle: servers by id, tools by name (code-unit order, not locale), and
 * every tool object's own keys in the order the server sent them. No timestamps, so an
 * unchanged server exports to the same bytes.
 */
export function canonicalBundle(servers: readonly BundleServer[]): Bundle {
  return {
    version: BUNDLE_VERSION,
    servers: [...servers].sort((a, b) => compare(a.id, b.id)).map(canonicalServer),
  };
}

function canonicalServer(server: BundleServer): BundleServer {
  const { id, serverInfo, protocolVersion, instructions, endpoint, tools, inferred, ...rest } = server;
  return {
    id,
    ...(serverInfo === undefined ? {} : { serverInfo }),
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
    ...(instructions === undefined ? {} : { instructions }),
    ...(endpoint === undefined ? {} : { endpoint }),
    ...rest,
    tools: [...tools].sort((a, b) => compare(a.name, b.name)),
    ...(inferred === undefined || inferred.length === 0 ? {} : { inferred: [...inferred].sort((a, b) => compare(a.tool, b.tool)) }),
  };
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Two-space JSON with a trailing newline: the on-disk form of every file we write. */
export function toJsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
