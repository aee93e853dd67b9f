import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest } from "@modelcontextprotocol/sdk/types.js";
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
  extra: RequestHandlerExtra<ServerRequest, ServerNotification>,
  run: () => Promise<CallToolResult>,
): Promise<CallToolResult> {
  const span = ToolCallSpan.server(tool, extra._meta);
  const headers = extra.requestInfo?.headers;
  // Over HTTP each request names the protocol version in a header; over stdio nothing tells it here.
  const version = headers?.["mcp-protocol-version"];
  span.connection({
    transport: headers !== undefined ? "tcp" : server.transport instanceof StdioServerTransport ? "pipe" : undefined,
    protocolVersion: typeof version === "string" ? version : undefined,
    sessionId: extra.sessionId,
  });
  span.requestId(extra.requestId);
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
  return result.content
    .flatMap((block) => (block.type === "text" ? [block.text] : []))
    .join("\n")
    .slice(0, 200);
}
