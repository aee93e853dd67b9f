import { formatJsonPath } from "@pmcp-codegen/runtime/internal";
import { z } from "zod";
import { camelTool, fromFoundationFile } from "../bundle/foundation.js";
import { canonicalBundle } from "../bundle/serialize.js";
import { BUNDLE_VERSION, type Bundle, BundleSchema } from "../bundle/types.js";
import { PmcpError } from "../errors.js";
import { parseJsonText, parseJsonValue, readJsonFile } from "../files/read-json.js";
import { schemaFilePaths } from "./schema-files.js";

export type SchemaFileFormat = "bundle" | "pmcp-foundation";

export interface ReadResult {
  bundle: Bundle;
  files: { path: string; format: SchemaFileFormat }[];
}

/**
 * Reads our bundle, PMCP's documented bundle and PMCP foundation files (camelCase or
 * snake_case keys), from files or folders of `.json` files, into one validated bundle.
 * Every problem names the file, and the server and tool where there is one.
 */
export async function readSchemaFiles(paths: readonly string[]): Promise<ReadResult> {
  const files = await schemaFilePaths(paths);
  const servers: Bundle["servers"] = [];
  const read: ReadResult["files"] = [];
  const origin = new Map<string, string>();
  for (const path of files) {
    const { format, bundle } = schemaFileOf(path, await readJsonFile(path, z.unknown()));
    read.push({ path, format });
    for (const server of bundle.servers) {
      const first = origin.get(server.id);
      if (first !== undefined) throw new PmcpError("INVALID_INPUT", `${path}: server "${server.id}" is also in ${first}`);
      origin.set(server.id, path);
      servers.push(server);
    }
  }
  return { bundle: canonicalBundle(servers), files: read };
}

/**
 * A bundle for library use (`toolsForModel`, `renderClients`, `diffBundles`), read and validated as every
 * pmcp command reads `--schema`: one file or folder, or several; PMCP's formats too. A file that is
 * missing, not JSON or not a bundle throws a PmcpError naming the file and the place in it.
 */
export async function readBundle(path: string | readonly string[]): Promise<Bundle> {
  return (await readSchemaFiles(typeof path === "string" ? [path] : path)).bundle;
}

/**
 * The one bundle file a read came from, which learned blocks can be written back into; undefined for
 * several files, or a PMCP per-server file, which have no single place for them.
 */
export function singleBundleFile(files: ReadResult["files"]): string | undefined {
  const [file] = files;
  return files.length === 1 && file?.format === "bundle" ? file.path : undefined;
}

/** Parses one file's text; `path` is only used in messages. */
export function parseSchemaFile(path: string, text: string): { format: SchemaFileFormat; bundle: Bundle } {
  return schemaFileOf(path, parseJsonText(text, path, z.unknown()));
}

/** Tells the file's format from its top-level keys, then validates it as a bundle. */
function schemaFileOf(path: string, json: unknown): { format: SchemaFileFormat; bundle: Bundle } {
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    throw new PmcpError("INVALID_INPUT", `${path}: expected a JSON object (a schema bundle or a PMCP foundation file)`);
  }
  const object = json as Record<string, unknown>;
  let format: SchemaFileFormat;
  let candidate: unknown;
  if (Array.isArray(object.servers)) {
    format = "bundle";
    candidate = { version: object.version, servers: object.servers.map(camelServer) };
  } else if ("server_id" in object || "serverId" in object) {
    format = "pmcp-foundation";
    candidate = { version: BUNDLE_VERSION, servers: [fromFoundationFile(object)] };
  } else {
    throw new PmcpError("INVALID_INPUT", `${path}: neither a schema bundle ("servers": [...]) nor a PMCP foundation file ("server_id")`);
  }
  const bundle = parseJsonValue(candidate, path, BundleSchema, { describePath: (at) => locate(candidate, at) });
  return { format, bundle: inKeyOrderOf(bundle, candidate) as Bundle };
}

/**
 * `parsed` with each object's keys in the order `original` has them. zod puts the keys it models
 * first, and a tool recorded as its server sent it must stay so: a bundle read and written back
 * unchanged keeps its bytes. zod passes what it does not model (schemas, `_meta`) through as the
 * same objects, so only the few objects it made are copied.
 */
function inKeyOrderOf(parsed: unknown, original: unknown): unknown {
  if (parsed === original || typeof parsed !== "object" || parsed === null || typeof original !== "object" || original === null) {
    return parsed;
  }
  if (Array.isArray(parsed)) {
    return Array.isArray(original) ? parsed.map((item, index) => inKeyOrderOf(item, original[index])) : parsed;
  }
  const from = original as Record<string, unknown>;
  const to = parsed as Record<string, unknown>;
  const keys = [
    ...Object.keys(from).filter((key) => Object.hasOwn(to, key)),
    ...Object.keys(to).filter((key) => !Object.hasOwn(from, key)),
  ];
  return Object.fromEntries(keys.map((key) => [key, inKeyOrderOf(to[key], from[key])]));
}

function camelServer(server: unknown): unknown {
  if (typeof server !== "object" || server === null || Array.isArray(server)) return server;
  const { server_info, protocol_version, ...rest } = server as Record<string, unknown>;
  return {
    ...(server_info === undefined ? {} : { serverInfo: server_info }),
    ...(protocol_version === undefined ? {} : { protocolVersion: protocol_version }),
    ...rest,
    tools: Array.isArray(rest.tools) ? rest.tools.map(camelTool) : rest.tools,
  };
}

/** An issue's place named by server id and tool name rather than by array index. */
function locate(candidate: unknown, path: readonly PropertyKey[]): string {
  const [top, serverIndex, toolsKey, toolIndex, ...rest] = path;
  if (top !== "servers" || typeof serverIndex !== "number") return formatJsonPath(path);
  const server = (candidate as { servers: Record<string, unknown>[] }).servers[serverIndex];
  const serverName = typeof server?.id === "string" ? `server "${server.id}"` : `servers[${serverIndex}]`;
  if (toolsKey !== "tools" || typeof toolIndex !== "number") {
    return `${serverName}${toolsKey === undefined ? "" : ` ${String(toolsKey)}`}`;
  }
  const tool = (server?.tools as Record<string, unknown>[] | undefined)?.[toolIndex];
  const toolName = typeof tool?.name === "string" ? `tool "${tool.name}"` : `tools[${toolIndex}]`;
  return `${serverName} ${toolName}${rest.length ? ` ${formatJsonPath(rest)}` : ""}`;
}
