import type { Bundle, Tool } from "../bundle/types.js";
import { normalizeBundle, type ToolOutcome } from "../normalize/bundle.js";
import { perProfile } from "../normalize/per-profile.js";

/** One tool as the agent's model is given it under a profile: its normalized schemas, and what normalizing did. */
export interface ModelTool {
  tool: Tool;
  outcome: ToolOutcome;
}

/**
 * Every tool of a bundle as a profile's model sees it, by `server/tool`. Remembered per bundle object:
 * the inspect tools read the bundle per call, and learning replaces it with a new object, so a bundle
 * is normalized once per version and a stale view is never shown.
 */
export const modelTools = perProfile((bundle: Bundle, profile): ReadonlyMap<string, ModelTool> => {
  const { servers, outcomes } = normalizeBundle(bundle, profile);
  const tools = servers.flatMap((server) => server.tools);
  return new Map(outcomes.map((outcome, index) => [`${outcome.server}/${outcome.tool}`, { tool: tools[index] as Tool, outcome }]));
});
