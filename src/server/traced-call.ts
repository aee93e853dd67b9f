import {
  type CallToolResult,
  InMemoryTransport,
  PROTOCOL_VERSION_META_KEY,
  type Server,
  type ServerContext,
} from "@modelcontextprotocol/server";
import { context } from "@opentelemetry/api";
import { errorMessage, ToolCallSpan } from "@pmcp-codegen/runtime/internal";

/**
 * Serves one tools/call inside a SERVER span (and `mcp.server.operation.duration`), continuing
 * the trace the client sent in `params._meta`; calls the tool makes become its children.
 * A throw counts as `tool_error`: McpServer answers a tool's throw with an `isError` result.
 */
export async function tracedToolCall(
  server: Server,
  tool: string,
  ctx: ServerContext,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const span = ToolCallSpan.server(tool, ctx.mcpReq._meta);
  const request = ctx.http?.req;
  // A modern request names its version in its envelope (over HTTP also in a header); a 2025-era one was set by `initialize`.
  const version =
    request?.headers.get("mcp-protocol-version") ??
    (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[PROTOCOL_VERSION_META_KEY] ??
    server.getNegotiatedProtocolVersion();
  span.connection({
    // Not over HTTP: stdio, however the SDK wraps it (serveStdio's per-connection channel), unless in-process.
    transport: request !== undefined ? "tcp" : server.transport instanceof InMemoryTransport ? undefined : "pipe",
    protocolVersion: typeof version === "string" ? version : undefined,
    sessionId: ctx.sessionId,
  });
  span.requestId(ctx.mcpReq.id);
  try {
    const result = await context.with(span.context, run);
    span.end(result.isError === true ? { type: "tool_error", message: textOf(result) } : undefined);
    return result;
  } catch (error) {
    span.end({ type: "tool_error", message: errorMessage(error) });
    throw error;
  }
}

function textOf(result: CallToolResult): string {
  return (result.content ?? [])
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .slice(0, 200);
}
