import type { Tool } from "./types.js";

/** Argument objects per tool name or `server/tool`: the samples file of `pmcp schema discover`. */
export type DiscoverySamples = Readonly<Record<string, readonly Record<string, unknown>[]>>;

/** The calls discovery may make to a tool, or why it makes none. */
export type DiscoveryPlan = { calls: readonly Record<string, unknown>[] } | { skip: string };

/**
 * What discovery may call: only a tool annotated `readOnlyHint: true`, or named in `allowed`, and
 * never one that declares itself destructive, since calling tools to learn their output must not
 * change anything on the server; with the samples' arguments, else `{}` when it requires none. A
 * pure rule, so that `pmcp report` recommends exactly the tools `pmcp schema discover` would call.
 */
export function discoveryPlan(serverId: string, tool: Tool, samples: DiscoverySamples, allowed: ReadonlySet<string>): DiscoveryPlan {
  const qualified = `${serverId}/${tool.name}`;
  const annotations = tool.annotations ?? {};
  const readOnly = annotations.readOnlyHint === true;
  // destructiveHint means something only for a tool that is not read-only (MCP spec).
  if (!readOnly && annotations.destructiveHint === true) return { skip: "annotated destructive (destructiveHint: true): never called" };
  if (!readOnly && !allowed.has(qualified) && !allowed.has(tool.name))
    return { skip: `not annotated read-only: name it with --allow-tool ${qualified} to call it` };
  const listed = Object.hasOwn(samples, qualified)
    ? samples[qualified]
    : Object.hasOwn(samples, tool.name)
      ? samples[tool.name]
      : undefined;
  if (listed !== undefined) return listed.length > 0 ? { calls: listed } : { skip: "the samples file lists no arguments for it" };
  if (requiresArguments(tool)) return { skip: `needs arguments: add "${qualified}": [{...}] to the samples file` };
  return { calls: [{}] };
}

function requiresArguments(tool: Tool): boolean {
  const required = (tool.inputSchema as { required?: unknown } | undefined)?.required;
  return Array.isArray(required) && required.length > 0;
}
