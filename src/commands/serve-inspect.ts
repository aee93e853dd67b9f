import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { readSchemaFiles } from "../bundle/read.js";
import type { Bundle } from "../bundle/types.js";
import { configuredBundlePath } from "../config/pmcp-config.js";
import { RuntimeFailure, errorMessage } from "../errors.js";
import { createInspectServer } from "../inspect/inspect-server.js";
import { printJson, type OutputOptions } from "../cli/output.js";

export interface ServeInspectArgs extends OutputOptions {
  schema: string[];
  /** Serve Streamable HTTP on 127.0.0.1 at this port (0: any free one) instead of stdio. */
  http: number | undefined;
}

/** `pmcp serve inspect`: list_tools and inspect_tool over a bundle, on stdio or local HTTP, until stopped. */
export async function serveInspect(args: ServeInspectArgs): Promise<void> {
  const { bundle } = await readSchemaFiles(args.schema.length > 0 ? args.schema : [await configuredBundlePath()]);
  if (args.http === undefined) return serveStdio(bundle);
  return serveHttp(bundle, args.http, args);
}

/** stdout carries protocol messages only, so nothing else is printed here. */
async function serveStdio(bundle: Bundle): Promise<void> {
  const server = createInspectServer(bundle);
  // The transport does not watch for the end of stdin, the usual way a client stops its server:
  // without this the command would never return and Node would exit 13 on the pending await.
  const stdinEnded = new Promise<void>((resolve) => process.stdin.once("end", resolve));
  const closed = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  await server.connect(new StdioServerTransport());
  await Promise.race([stdinEnded, closed, signalled()]);
  await server.close();
}

async function serveHttp(bundle: Bundle, port: number, output: OutputOptions): Promise<void> {
  const http = createServer((req, res) => {
    handle(bundle, http, req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" }).end(errorMessage(error));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", (error: NodeJS.ErrnoException) => reject(new RuntimeFailure(`cannot listen on 127.0.0.1:${port}: ${error.code ?? error.message}`)));
    http.listen(port, "127.0.0.1", resolve);
  });
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  if (!output.quiet) process.stderr.write(`Serving inspect on ${url}\n`);
  if (output.json) printJson({ url });
  await signalled();
  http.closeAllConnections();
  await new Promise<void>((resolve) => http.close(() => resolve()));
}

/**
 * Stateless Streamable HTTP: a fresh server and transport per POST, so requests share nothing
 * and no session needs expiring. The Host check refuses DNS-rebinding pages that reach 127.0.0.1
 * under another name.
 */
async function handle(bundle: Bundle, http: Server, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const { port } = http.address() as AddressInfo;
  if (req.headers.host !== `127.0.0.1:${port}` && req.headers.host !== `localhost:${port}`) {
    return void res.writeHead(403, { "content-type": "text/plain" }).end("forbidden host");
  }
  if (new URL(req.url ?? "/", "http://127.0.0.1").pathname !== "/mcp") return void res.writeHead(404).end();
  if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
  const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
  const server = createInspectServer(bundle);
  // Closing the server closes its transport too.
  res.on("close", () => void server.close());
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

/** Resolves on the first SIGINT or SIGTERM; handling them lets the server close before the process ends. */
function signalled(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      resolve();
    };
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
}
