import type { Tool } from "./types.js";

/**
 * Whether a tool declares `execution.taskSupport: "required"` (protocol 2025-11-25): called
 * plainly it fails with -32601, so clients call it as a task and wait for the task's result.
 */
export function requiresTask(tool: Tool): boolean {
  const execution = (tool as { execution?: unknown }).execution;
  return typeof execution === "object" && execution !== null && (execution as { taskSupport?: unknown }).taskSupport === "required";
}

/** The line a method's doc and an inspection give such a tool. */
export const TASK_NOTE = "The server requires this tool to run as a task: the call creates the task and waits for its result.";
