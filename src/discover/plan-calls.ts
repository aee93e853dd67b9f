import { z } from "zod";
import type { Tool } from "../bundle/types.js";

/**
 * The samples file: tool name, or `server/tool`, to the argument objects to call it with,
 * e.g. `{"search_docs": [{"query": "a"}, {"query": "b"}]}`.
 */
export const SamplesFileSchema = z.record(z.string(), z.array(z.record(z.string(), z.unknown())));
export type SamplesFile = z.infer<typeof SamplesFileSchema>;

export type CallPlan = { tool: Tool; calls: Record<string, unknown>[] } | { tool: Tool; skip: string };

/**
 * What discovery may call, tool by tool. Only tools annotated `readOnlyHint: true`, or
 * named with `--allow-tool`, are called, and never one that declares itself destructive:
 * calling tools to learn their output must not change anything on the server.
 */
export function planCalls(serverId: string, tools: readonly Tool[], samples: SamplesFile, allowed: ReadonlySet<string>): CallPlan[] {
  return tools.map((tool): CallPlan => {
    const qualified = `${serverId}/${tool.name}`;
    const annotations = tool.annotations ?? {};
    const readOnly = annotations.readOnlyHint === true;
    // destructiveHint means something only for a tool that is not read-only (MCP spec).
    if (!readOnly && annotations.destructiveHint === true)
      return { tool, skip: "annotated destructive (destructiveHint: true): never called" };
    if (!readOnly && !allowed.has(qualified) && !allowed.has(tool.name)) {
      return { tool, skip: `not annotated read-only: name it with --allow-tool ${qualified} to call it` };
    }
    const listed = Object.hasOwn(samples, qualified)
      ? samples[qualified]
      : Object.hasOwn(samples, tool.name)
        ? samples[tool.name]
        : undefined;
    if (listed !== undefined)
      return listed.length > 0 ? { tool, calls: listed } : { tool, skip: "the samples file lists no arguments for it" };
    if (requiresArguments(tool)) return { tool, skip: `needs arguments: add "${qualified}": [{...}] to the samples file` };
    return { tool, calls: [{}] };
  });
}

function requiresArguments(tool: Tool): boolean {
  const required = (tool.inputSchema as { required?: unknown } | undefined)?.required;
  return Array.isArray(required) && required.length > 0;
}

/** Keys of the samples file that name no listed tool: most likely a typo. */
export function unmatchedSamples(samples: SamplesFile, listed: readonly { serverId: string; tools: readonly Tool[] }[]): string[] {
  const names = new Set(listed.flatMap(({ serverId, tools }) => tools.flatMap((tool) => [tool.name, `${serverId}/${tool.name}`])));
  return Object.keys(samples).filter((key) => !names.has(key));
}
