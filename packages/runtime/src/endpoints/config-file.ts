import { dirname, resolve } from "node:path";
import { z } from "zod";
import { ConfigurationError } from "../errors.js";
import { formatIssues } from "../issues.js";
import { JsonFileError, parseJsonValue, readJsonFile } from "../json-file.js";
import { interpolate, interpolateRecord } from "./interpolate.js";
import { isModernVersion } from "./protocol-version.js";
import { redactWrittenUrl } from "./redact.js";
import { ServerIdSchema } from "./server-id.js";
import type { HttpTransportChoice, ServerSource } from "./source.js";

const StringMap = z.record(z.string(), z.string());

/** `legacy`, `auto` or a modern protocol version (`2026-07-28`): the era a server is spoken to in. */
export const ProtocolChoiceSchema = z.string().superRefine((choice, context) => {
  if (choice === "legacy" || choice === "auto") return;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(choice))
    context.addIssue({ code: "custom", message: 'expected "legacy", "auto" or a protocol version such as "2026-07-28"' });
  // A 2025 version is the 2025 handshake, which offers the newest 2025 revision and takes the server's answer.
  else if (!isModernVersion(choice)) context.addIssue({ code: "custom", message: `${choice} is a 2025-era version: use "legacy"` });
});

const StdioEntry = z.object({
  type: z.literal("stdio").optional(),
  command: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: StringMap.optional(),
  cwd: z.string().optional(),
  protocol: ProtocolChoiceSchema.optional(),
});

const HttpKind = z.enum(["http", "streamable-http", "streamableHttp", "sse"]);
const HttpEntry = z.object({
  type: HttpKind.optional(),
  /** pmcp's own spelling of `type`, as in `new CompositionClient({ servers })`. */
  transport: HttpKind.optional(),
  url: z.string().min(1),
  headers: StringMap.optional(),
  protocol: ProtocolChoiceSchema.optional(),
});

/** One `mcpServers` entry: a stdio command or an HTTP endpoint. */
export const ServerEntrySchema = z.union([StdioEntry, HttpEntry], {
  error: () => "expected {command, args?, env?, cwd?, protocol?} or {url, type?, headers?, protocol?}",
});
export type ServerEntry = z.input<typeof ServerEntrySchema>;
const Entries = z.record(z.string(), ServerEntrySchema);

/** Claude Desktop / Claude Code / Cursor use `mcpServers`; VS Code uses `servers`. */
const McpServersFile = z.object({ mcpServers: Entries });
const VsCodeFile = z.object({ servers: Entries });
const isObject = (json: unknown): json is object => typeof json === "object" && json !== null && !Array.isArray(json);
const ConfigObject = z.custom<object>((json) => isObject(json) && ("mcpServers" in json || "servers" in json), {
  error: (issue) => {
    const expected = 'expected an object with "mcpServers" (or VS Code\'s "servers")';
    if (!isObject(issue.input)) return expected;
    const keys = Object.keys(issue.input);
    // Keys are case-sensitive: "mcpservers" would otherwise mean a file with no servers.
    const near = keys.find((key) => /^(mcp)?servers$/i.test(key));
    if (near !== undefined)
      return `"${near}" is not read (keys are case-sensitive): did you mean "${/^mcp/i.test(near) ? "mcpServers" : "servers"}"?`;
    return `${expected}; it has ${keys.map((key) => JSON.stringify(key)).join(", ") || "no keys"}`;
  },
});

type ConfigEntry = z.infer<typeof ServerEntrySchema>;

/**
 * Reads an `mcpServers` config file into sources (`only`: just these ids). Relative `cwd`
 * values resolve against the file's folder, which is also the default working directory of
 * its stdio servers, as with a project `.mcp.json`. Every failure is a ConfigurationError
 * naming the file and, for a wrong shape, the JSON path.
 */
export async function readConfigFile(path: string, only: readonly string[] = []): Promise<ServerSource[]> {
  const entries = await readEntries(path);
  const unknown = only.filter((id) => !Object.hasOwn(entries, id));
  if (unknown.length > 0) {
    throw new ConfigurationError(
      `--server ${unknown.join(", ")}: not in ${path} (it has ${Object.keys(entries).join(", ") || "no servers"})`,
      { file: path },
    );
  }
  const baseDir = dirname(resolve(path));
  try {
    return Object.entries(entries)
      .filter(([id]) => only.length === 0 || only.includes(id))
      .map(([id, entry]) => toSource(id, entry, `${path} server "${id}"`, baseDir));
  } catch (error) {
    // An entry's problem (a bad id, an unset ${VAR}, a bad URL): its message names the file already.
    if (error instanceof ConfigurationError) throw new ConfigurationError(error.message, { file: path, cause: error });
    throw error;
  }
}

async function readEntries(path: string): Promise<Record<string, ConfigEntry>> {
  const options = { what: "config file" };
  try {
    // Which key holds the entries decides the schema: only that one is checked.
    const json = await readJsonFile(path, ConfigObject, options);
    const parsed = parseJsonValue(json, path, "mcpServers" in json ? McpServersFile : VsCodeFile, options);
    return "mcpServers" in parsed ? parsed.mcpServers : parsed.servers;
  } catch (error) {
    if (error instanceof JsonFileError) throw new ConfigurationError(error.message, { file: path, cause: error });
    throw error;
  }
}

/**
 * Validates a map of `mcpServers` entries given in code or in `pmcp.config` and turns it
 * into sources; relative `cwd` values resolve against `baseDir`.
 */
export function sourcesFromEntries(entries: unknown, where: string, baseDir: string): ServerSource[] {
  const parsed = Entries.safeParse(entries);
  if (!parsed.success) throw new ConfigurationError(formatIssues(where, parsed.error.issues));
  return Object.entries(parsed.data).map(([id, entry]) => toSource(id, entry, `${where} server "${id}"`, baseDir));
}

function toSource(id: string, entry: ConfigEntry, where: string, baseDir: string): ServerSource {
  const idCheck = ServerIdSchema.safeParse(id);
  if (!idCheck.success) throw new ConfigurationError(`${where}: ${idCheck.error.issues[0]?.message}`);
  if ("command" in entry) {
    const args = entry.args ?? [];
    return {
      kind: "stdio",
      id,
      label: id,
      command: interpolate(entry.command, `${where} command`),
      args: args.map((arg) => interpolate(arg, `${where} args`)),
      recorded: { command: entry.command, args },
      env: interpolateRecord(entry.env, `${where} env`),
      inheritEnv: false,
      cwd: resolve(baseDir, entry.cwd ?? "."),
      ...(entry.protocol === undefined ? {} : { protocol: entry.protocol }),
    };
  }
  const url = parseUrl(interpolate(entry.url, `${where} url`), where);
  return {
    kind: "http",
    id,
    label: id,
    ...httpTarget(url, interpolateRecord(entry.headers, `${where} header`), where),
    recordedUrl: redactWrittenUrl(entry.url, url),
    transport: transportOf(entry.transport ?? entry.type),
    ...(entry.protocol === undefined ? {} : { protocol: entry.protocol }),
  };
}

/** `sse` forces the legacy transport and `streamable-http` the new one; otherwise try new, then legacy. */
function transportOf(kind: z.infer<typeof HttpKind> | undefined): HttpTransportChoice {
  if (kind === "sse") return "sse";
  return kind === "streamable-http" ? "streamable-http" : "auto";
}

/**
 * fetch refuses URLs with credentials, so `user:password@` becomes Basic authentication
 * (as curl does) unless an Authorization header is given; the URL keeps no secrets.
 */
export function httpTarget(url: URL, headers: Record<string, string>, where: string): { url: URL; headers: Record<string, string> } {
  if (url.username === "" && url.password === "") return { url, headers };
  const clean = new URL(url.href);
  const credentials = `${decodeCredential(url.username, where)}:${decodeCredential(url.password, where)}`;
  clean.username = "";
  clean.password = "";
  const hasAuthorization = Object.keys(headers).some((name) => name.toLowerCase() === "authorization");
  return {
    url: clean,
    headers: hasAuthorization ? headers : { ...headers, Authorization: `Basic ${base64(credentials)}` },
  };
}

function decodeCredential(text: string, where: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new ConfigurationError(
      `${where}: the user name or password in the URL has a "%" not followed by two hex digits (write "%" as %25)`,
    );
  }
}

/** Parses an http(s) URL or fails with a ConfigurationError naming where it came from. */
export function parseUrl(text: string, where: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new ConfigurationError(`${where}: "${text}" is not a URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigurationError(`${where}: only http and https URLs are supported, got ${url.protocol}`);
  }
  return url;
}

/** UTF-8 then base64, without Node's Buffer: the runtime also runs in Deno, Bun and edge runtimes. */
function base64(text: string): string {
  return btoa(Array.from(new TextEncoder().encode(text), (byte) => String.fromCharCode(byte)).join(""));
}
