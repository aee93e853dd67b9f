import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { toNodeHandler } from "@modelcontextprotocol/node";
import { SSEServerTransport } from "@modelcontextprotocol/sdk/server/sse.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { createMcpHandler, McpServer } from "@modelcontextprotocol/server";

interface Connectable {
  connect(transport: Transport): Promise<void>;
}

export interface HttpFixture {
  /** The MCP endpoint: `/mcp` for Streamable HTTP, `/sse` for the legacy transport. */
  url: string;
  requests: { method: string; url: string; authorization: string | undefined }[];
  close(): Promise<void>;
}

/**
 * Serves a fixture server on 127.0.0.1 with an ephemeral port, over Streamable HTTP
 * (stateless: a fresh server per request) or the 2024-11-05 HTTP+SSE transport.
 * With `bearer`, requests without `Authorization: Bearer <bearer>` get 401. A server on the SDK's
 * v2 line is served over Streamable HTTP as v2 serves it, in both eras (`createMcpHandler`).
 */
export async function serveHttp(
  factory: () => Connectable,
  options: { transport: "streamable-http" | "sse"; bearer?: string },
): Promise<HttpFixture> {
  const sessions = new Map<string, SSEServerTransport>();
  const v2 = options.transport === "streamable-http" && factory() instanceof McpServer;
  const v2Handler = v2 ? toNodeHandler(createMcpHandler(factory as () => McpServer)) : undefined;
  const requests: HttpFixture["requests"] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? "", url: req.url ?? "", authorization: req.headers.authorization });
    if (options.bearer !== undefined && req.headers.authorization !== `Bearer ${options.bearer}`) {
      res.writeHead(401, { "content-type": "application/json", "www-authenticate": "Bearer" }).end('{"error":"unauthorized"}');
      return;
    }
    const handle = options.transport === "streamable-http" ? handleStreamable : handleSse;
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });

  async function handleStreamable(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? "/", "http://localhost").pathname;
    if (path !== "/mcp") return void res.writeHead(404).end();
    if (v2Handler !== undefined) return v2Handler(req as IncomingMessage & { method: string; url: string }, res);
    if (req.method !== "POST") return void res.writeHead(405, { allow: "POST" }).end();
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    res.on("close", () => void transport.close());
    await factory().connect(transport);
    await transport.handleRequest(req, res);
  }

  async function handleSse(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname === "/sse" && req.method === "GET") {
      const transport = new SSEServerTransport("/messages", res);
      sessions.set(transport.sessionId, transport);
      res.on("close", () => sessions.delete(transport.sessionId));
      await factory().connect(transport);
      return;
    }
    if (url.pathname === "/messages" && req.method === "POST") {
      const transport = sessions.get(url.searchParams.get("sessionId") ?? "");
      if (transport === undefined) return void res.writeHead(404).end("unknown session");
      await transport.handlePostMessage(req, res);
      return;
    }
    res.writeHead(url.pathname === "/sse" ? 405 : 404).end();
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/${options.transport === "streamable-http" ? "mcp" : "sse"}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
