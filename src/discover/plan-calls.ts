import { z } from "zod";
import { type DiscoveryPlan, discoveryPlan } from "../bundle/discovery-plan.js";
import type { Tool } from "../bundle/types.js";

/**
 * The samples file: tool name, or `server/tool`, to the argument objects to call it with,
 * e.g. `{"search_docs": [{"query": "a"}, {"query": "b"}]}`.
 */
export const SamplesFileSchema = z.record(z.string(), z.array(z.record(z.string(), z.unknown())));
export type SamplesFile = z.infer<typeof SamplesFileSchema>;

export type CallPlan = { tool: Tool } & DiscoveryPlan;

/** What discovery may call, tool by tool (see discoveryPlan). */
export function planCalls(serverId: string, tools: readonly Tool[], samples: SamplesFile, allowed: ReadonlySet<string>): CallPlan[] {
  return tools.map((tool) => ({ tool, ...discoveryPlan(serverId, tool, samples, allowed) }));
}

/** Keys of the samples file that name no listed tool: most likely a typo. */
export function unmatchedSamples(samples: SamplesFile, listed: readonly { serverId: string; tools: readonly Tool[] }[]): string[] {
  const names = new Set(listed.flatMap(({ serverId, tools }) => tools.flatMap((tool) => [tool.name, `${serverId}/${tool.name}`])));
  return Object.keys(samples).filter((key) => !names.has(key));
}
