import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { type AuthInfo, createMcpHandler, type McpServer } from "@modelcontextprotocol/server";
import { serveStdio as serve } from "@modelcontextprotocol/server/stdio";
import { readSchemaFiles } from "../bundle-files/read.js";
import { type LoadedConfig, loadPmcpConfig } from "../config/pmcp-config.js";
import { PmcpError } from "../errors.js";
import { createInspectServer } from "../inspect/inspect-server.js";
import { watchSignals } from "../signals.js";
import { type BearerAuth, bearerGate, staticTokenAuth, verifierAuth } from "./shared/bearer-auth.js";
import type { CommandArgs } from "./shared/command.js";
import { LOOPBACK } from "./shared/flags.js";
import { resolveInputs } from "./shared/inputs.js";
import { type OutputOptions, printJson, warn } from "./shared/output.js";

/** Addresses only this machine reaches. */
const LOOPBACKS = new Set([LOOPBACK, "::1", "localhost"]);

/**
 * The HTTP settings of a `pmcp serve` command, checked: a token's variable set, not both it and
 * `pmcp.config`'s `serve.auth`, and an address beyond loopback only with one of them.
 */
export async function httpSettings(
  args: { http?: number | undefined; allowedHost: string[]; host: string; authTokenEnv?: string | undefined },
  project: LoadedConfig | undefined,
): Promise<HttpSettings> {
  const token = args.authTokenEnv === undefined ? undefined : process.env[args.authTokenEnv];
  if (args.authTokenEnv !== undefined && (token === undefined || token === ""))
    throw new PmcpError("INVALID_ARGUMENT", `--auth-token-env ${args.authTokenEnv}: the environment variable is not set`);
  const configured = project?.config.serve?.auth;
  if (token !== undefined && configured !== undefined)
    throw new PmcpError("INVALID_ARGUMENT", "--auth-token-env and pmcp.config's serve.auth both say who may call: give one");
  const auth = token !== undefined ? staticTokenAuth(token) : configured === undefined ? undefined : verifierAuth(configured);
  if (!LOOPBACKS.has(args.host) && auth === undefined)
    throw new PmcpError(
      "INVALID_ARGUMENT",
      `--host ${args.host} is reached from other machines: give --auth-token-env or pmcp.config's serve.auth, so that only callers with a token are answered`,
    );
  return { port: args.http ?? 0, allowedHosts: args.allowedHost, host: args.host, auth };
}

export interface HttpSettings {
  port: number;
  allowedHosts: readonly string[];
  host: string;
  /** Who may call: undefined, anyone who reaches the address (loopback only). */
  auth: BearerAuth | undefined;
}

/** `pmcp serve inspect`: list_tools and inspect_tool over a bundle, on stdio or local HTTP, until stopped. */
export async function serveInspect(args: CommandArgs<"serve inspect">): Promise<void> {
  const { schema } = await resolveInputs(args.schema);
  const { bundle } = await readSchemaFiles(schema);
  const create = () => createInspectServer(bundle, args.profile);
  if (args.http === undefined) return serveStdio(create);
  return serveHttp(create, "inspect", await httpSettings(args, await loadPmcpConfig()), args);
}

/**
 * Both protocol eras on stdio: the client's opening message decides (`server/discover` or a
 * modern request: 2026-07-28; `initialize`: 2025), one server from `create` per connection.
 * stdout carries protocol messages only, so nothing else is printed here. `onServing` is called
 * once the server reads its input.
 */
export async function serveStdio(create: () => McpServer, onServing?: () => void): Promise<void> {
  // The entry does not say when the client went away, the usual way a client stops its server:
  // without this the command would never return and Node would exit 13 on the pending await.
  const stdinEnded = new Promise<void>((resolve) => process.stdin.once("end", resolve));
  const handle = serve(create);
  onServing?.();
  const stop = watchSignals();
  try {
    await Promise.race([stdinEnded, stop.signalled]);
    await handle.close();
  } finally {
    stop.release();
  }
}

/**
 * Streamable HTTP in both eras, keeping nothing between requests: a modern request is served
 * by a fresh server (the era has no session), a 2025-era one statelessly, so replicas behind one
 * load balancer answer alike. The Host and Origin checks refuse DNS-rebinding pages that reach
 * 127.0.0.1 under another name, and pages of other sites. `onServing` is called once it listens.
 */
export async function serveHttp(
  create: () => McpServer,
  name: string,
  http: HttpSettings,
  output: OutputOptions,
  onServing?: () => void,
): Promise<void> {
  const mcp = createMcpHandler(create);
  const serve = toNodeHandler(mcp);
  const allowed = http.allowedHosts.map((host) => host.toLowerCase());
  const gate = http.auth === undefined ? undefined : bearerGate(http.auth, (message) => warn(output, message));
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { port: bound } = listener.address() as AddressInfo;
    const local = [`127.0.0.1:${bound}`, `localhost:${bound}`, ...(LOOPBACKS.has(http.host) ? [] : [`${http.host}:${bound}`]), ...allowed];
    // Pages of this server itself, or of a proxy in front of it, which may well serve https.
    const origins = [...local.map((host) => `http://${host}`), ...allowed.map((host) => `https://${host}`)];
    // Host names are case-insensitive.
    if (!local.includes(req.headers.host?.toLowerCase() ?? "")) {
      return void res.writeHead(403, { "content-type": "text/plain" }).end("forbidden host");
    }
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    // The resource is named as its caller reached it: through a proxy, the proxy's host.
    const reached = new URL(`http://${req.headers.host}/mcp`);
    // Public, and read by browser clients of any origin before they have a token.
    if (gate?.isMetadataPath(path, reached)) return gate.metadata(reached, res);
    // An Origin other than our own MUST get 403 (MCP transport spec).
    const origin = req.headers.origin?.toLowerCase();
    if (origin !== undefined && !origins.includes(origin)) {
      return void res.writeHead(403, { "content-type": "text/plain" }).end("forbidden origin");
    }
    if (path !== "/mcp") return void res.writeHead(404).end();
    // The SDK's handler passes `auth` on to tools as the caller's (ctx.http.authInfo).
    const caller: IncomingMessage & { auth?: AuthInfo } = req;
    if (gate !== undefined) {
      const auth = await gate.admits(req, reached, res);
      if (auth === undefined) return;
      caller.auth = auth;
    }
    // Node types `method` and `url` as optional on any IncomingMessage; a server's requests always have both.
    void serve(caller as typeof caller & { method: string; url: string }, res);
  };
  const listener = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve, reject) => {
    listener.once("error", (error: NodeJS.ErrnoException) =>
      reject(new PmcpError("IO_FAILED", `cannot listen on ${http.host}:${http.port}: ${error.code ?? error.message}`)),
    );
    listener.listen(http.port, http.host, resolve);
  });
  // Before the line that tells a supervisor it may signal us: a SIGINT that came first would kill the process outright.
  const stop = watchSignals();
  const shown = http.host === "::1" ? "[::1]" : LOOPBACKS.has(http.host) ? LOOPBACK : http.host;
  const url = `http://${shown}:${(listener.address() as AddressInfo).port}/mcp`;
  if (!output.quiet) process.stderr.write(`Serving ${name} on ${url}\n`);
  if (output.json) printJson({ url });
  onServing?.();
  try {
    await stop.signalled;
    await mcp.close();
    listener.closeAllConnections();
    await new Promise<void>((resolve) => listener.close(() => resolve()));
  } finally {
    stop.release();
  }
}
