import { relative } from "node:path";
import { interpolate, redactWrittenUrl, ServerIdSchema, type ServerSource } from "@pmcp-codegen/runtime/internal";
import { httpTarget, ProtocolChoiceSchema, parseUrl, readConfigFile, sourcesFromEntries } from "@pmcp-codegen/runtime/internal/servers";
import { quote } from "shell-quote";
import { duplicateIdProblem } from "../../bundle/server-naming.js";
import type { LoadedConfig } from "../../config/pmcp-config.js";
import { PmcpError } from "../../errors.js";
import { splitCommandLine } from "./stdio-command-line.js";

/** The flags that name servers (`SOURCES` in flags.ts), as parsed. */
export interface SourceFlags {
  endpoint: string[];
  stdio: string[];
  config: string | undefined;
  server: string[];
  id: string | undefined;
  header: string[];
  maxMessageBytes: number | undefined;
  protocol: string | undefined;
}

export function hasSourceFlags(args: SourceFlags): boolean {
  return args.endpoint.length + args.stdio.length > 0 || args.config !== undefined;
}

/** The servers the flags name, or pmcp.config's `servers` when no flag names any. */
export async function resolveSources(args: SourceFlags, project: LoadedConfig | undefined, verb: string): Promise<ServerSource[]> {
  const { maxMessageBytes } = args;
  const limit = maxMessageBytes === undefined ? {} : { maxMessageBytes };
  const protocol = protocolOf(args.protocol);
  // --protocol applies to every server named, config entries too (it wins over their own `protocol`).
  const limited = (source: ServerSource): ServerSource => ({
    ...(source.kind === "stdio" ? { ...source, ...limit } : source),
    ...protocol,
  });
  if (!hasSourceFlags(args) && project?.config.servers !== undefined) {
    return sourcesFromEntries(project.config.servers, relative(process.cwd(), project.path), project.dir).map(limited);
  }
  const direct = args.endpoint.length + args.stdio.length;
  if (args.id !== undefined && direct !== 1) {
    throw new PmcpError("INVALID_ARGUMENT", "--id names the server of a single --endpoint or --stdio; use a --config file to name several");
  }
  if (args.server.length > 0 && args.config === undefined)
    throw new PmcpError("INVALID_ARGUMENT", "--server picks entries of a --config file; give --config too");
  if (args.id !== undefined) {
    const check = ServerIdSchema.safeParse(args.id);
    if (!check.success) throw new PmcpError("INVALID_ARGUMENT", `--id ${JSON.stringify(args.id)}: ${check.error.issues[0]?.message}`);
  }
  const headers = parseHeaders(args.header);
  const sources: ServerSource[] = [];
  for (const endpoint of args.endpoint) {
    const url = parseUrl(interpolate(endpoint, "--endpoint"), "--endpoint");
    const recordedUrl = redactWrittenUrl(endpoint, url);
    sources.push({
      kind: "http",
      label: args.id ?? recordedUrl,
      ...httpTarget(url, headers, "--endpoint"),
      recordedUrl,
      transport: "auto",
      ...idOf(args),
      ...protocol,
    });
  }
  for (const line of args.stdio) {
    const command = splitCommandLine(line);
    const label = args.id ?? quote([command.recorded.command, ...command.recorded.args]);
    sources.push({ kind: "stdio", label, ...command, env: {}, inheritEnv: true, ...limit, ...idOf(args), ...protocol });
  }
  if (args.config !== undefined) {
    for (const source of await readConfigFile(args.config, args.server)) {
      sources.push(source.kind === "http" ? { ...source, headers: { ...headers, ...source.headers }, ...protocol } : limited(source));
    }
  }
  if (sources.length === 0) {
    throw new PmcpError(
      "INVALID_ARGUMENT",
      `nothing to ${verb}: give --endpoint <url>, --stdio "<command>" or --config <file>, or list servers in pmcp.config`,
    );
  }
  const repeated = duplicateIdProblem(
    sources.flatMap((source) => (source.id === undefined ? [] : [{ id: source.id, label: source.label }])),
  );
  if (repeated !== undefined) throw new PmcpError("INVALID_ARGUMENT", repeated);
  return sources;
}

/** `--protocol`, checked: `legacy`, `auto` or a protocol version. */
function protocolOf(flag: string | undefined): { protocol?: string } {
  if (flag === undefined) return {};
  const check = ProtocolChoiceSchema.safeParse(flag);
  if (!check.success) throw new PmcpError("INVALID_ARGUMENT", `--protocol ${JSON.stringify(flag)}: ${check.error.issues[0]?.message}`);
  return { protocol: check.data };
}

function idOf(args: SourceFlags): { id?: string } {
  return args.id === undefined ? {} : { id: args.id };
}

/** `--header "Name: value"`, value `${VAR}`-interpolated. */
function parseHeaders(lines: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = colon > 0 ? line.slice(0, colon).trim() : "";
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new PmcpError("INVALID_ARGUMENT", `--header "${line}": expected "Name: value"`);
    headers[name] = interpolate(line.slice(colon + 1).trim(), `--header ${name}`);
  }
  return headers;
}
