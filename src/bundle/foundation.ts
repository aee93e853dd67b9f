import { parse, quote } from "shell-quote";
import type { BundleServer, Endpoint, Tool } from "./types.js";

export const FOUNDATION_SCHEMA_URL = "https://pmcp.run/schemas/mcp-foundation-v1.json";

/** Tool keys PMCP writes in snake_case; every other key is kept as sent. */
const SNAKE_TOOL_KEYS: Record<string, string> = { inputSchema: "input_schema", outputSchema: "output_schema" };
const CAMEL_TOOL_KEYS: Record<string, string> = { input_schema: "inputSchema", output_schema: "outputSchema" };

/**
 * PMCP's per-server "foundation" file, as `cargo pmcp schema export` writes it
 * (`schemas/<server_id>.json`, tool keys `input_schema`/`output_schema`). We leave out
 * `exported_at` so the file is deterministic, and add `protocol_version` and
 * `instructions`, which PMCP ignores, so that nothing is lost on a round trip.
 */
export function toFoundationFile(server: BundleServer): Record<string, unknown> {
  return {
    $schema: FOUNDATION_SCHEMA_URL,
    server_id: server.id,
    name: server.serverInfo?.name ?? server.id,
    ...(server.serverInfo?.version === undefined ? {} : { version: server.serverInfo.version }),
    ...(server.endpoint === undefined ? {} : { endpoint: endpointToString(server.endpoint) }),
    tier: "foundation",
    ...(server.protocolVersion === undefined ? {} : { protocol_version: server.protocolVersion }),
    ...(server.instructions === undefined ? {} : { instructions: server.instructions }),
    tools: server.tools.map((tool) => renameKeys(tool, SNAKE_TOOL_KEYS)),
  };
}

/** A foundation file (snake_case or camelCase keys) as a bundle server, ready for validation. */
export function fromFoundationFile(file: Record<string, unknown>): Record<string, unknown> {
  const id = file.server_id ?? file.serverId;
  const name = file.name;
  const version = file.version;
  const endpoint = typeof file.endpoint === "string" ? endpointFromString(file.endpoint) : undefined;
  const protocolVersion = file.protocol_version ?? file.protocolVersion;
  return {
    id,
    ...(typeof name === "string" ? { serverInfo: { name, version: typeof version === "string" ? version : "" } } : {}),
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
    ...(file.instructions === undefined ? {} : { instructions: file.instructions }),
    ...(endpoint === undefined ? {} : { endpoint }),
    tools: Array.isArray(file.tools) ? file.tools.map(camelTool) : file.tools,
  };
}

/** Accepts `input_schema`/`output_schema` anywhere we read tools; camelCase wins when both are present. */
export function camelTool(tool: unknown): unknown {
  if (typeof tool !== "object" || tool === null || Array.isArray(tool)) return tool;
  return renameKeys(tool as Record<string, unknown>, CAMEL_TOOL_KEYS);
}

function renameKeys(object: Readonly<Record<string, unknown>> | Tool, names: Record<string, string>): Record<string, unknown> {
  // Own keys and entries only: a tool may carry a key named "__proto__", which is data like any other.
  const entries: [string, unknown][] = [];
  for (const [key, value] of Object.entries(object)) {
    const renamed = Object.hasOwn(names, key) ? (names[key] as string) : key;
    if (!Object.hasOwn(object, renamed) || renamed === key) entries.push([renamed, value]);
  }
  return Object.fromEntries(entries);
}

function endpointToString(endpoint: Endpoint): string {
  return endpoint.transport === "stdio" ? `stdio:${quote([endpoint.command, ...endpoint.args])}` : endpoint.url;
}

function endpointFromString(text: string): Endpoint | undefined {
  if (text.startsWith("stdio:")) {
    const words = parse(text.slice("stdio:".length), (name) => `\${${name}}`).filter((word): word is string => typeof word === "string");
    const [command, ...args] = words;
    return command === undefined ? undefined : { transport: "stdio", command, args };
  }
  return /^https?:\/\//.test(text) ? { transport: "streamable-http", url: text } : undefined;
}
