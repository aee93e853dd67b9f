import { formatJsonPath } from "@pmcp-codegen/runtime/internal";
import { type Tool, ToolSchema } from "./types.js";

/** A listed tool must at least have the shape MCP defines; it is otherwise kept exactly as sent. */
export function checkTool(tool: unknown, index: number): { tool: Tool } | { name: string; label: string; problem: string } {
  const parsed = ToolSchema.safeParse(tool);
  if (parsed.success) return { tool: tool as Tool };
  const name = (tool as { name?: unknown } | null)?.name;
  const issue = parsed.error.issues[0];
  // The first issue is enough to fix the tool; the label says which tool it is.
  const problem = `${(issue && formatJsonPath(issue.path)) || "tool"}: ${issue?.message}`;
  return typeof name === "string"
    ? { name, label: `tool ${JSON.stringify(name)}`, problem }
    : { name: `tools[${index}]`, label: `tools[${index}]`, problem };
}
