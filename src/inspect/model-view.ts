import type { Bundle, Tool } from "../bundle/types.js";
import { normalizeBundle, type ToolOutcome } from "../normalize/bundle.js";
import type { Profile } from "../providers/facts.js";

/** One tool as the agent's model is given it under a profile: its normalized schemas, and what normalizing did. */
export interface ModelTool {
  tool: Tool;
  outcome: ToolOutcome;
}

/**
 * Keyed by the bundle object: the inspect tools read the bundle per call, and learning replaces it
 * with a new object, so a bundle is normalized once per version and a stale view is never shown.
 */
const views = new WeakMap<Bundle, Map<Profile, Map<string, ModelTool>>>();

/** Every tool of `bundle` as `profile`'s model sees it, by `server/tool`. */
export function modelTools(bundle: Bundle, profile: Profile): ReadonlyMap<string, ModelTool> {
  let byProfile = views.get(bundle);
  if (byProfile === undefined) {
    byProfile = new Map();
    views.set(bundle, byProfile);
  }
  let view = byProfile.get(profile);
  if (view === undefined) {
    const { servers, outcomes } = normalizeBundle(bundle, profile);
    const tools = servers.flatMap((server) => server.tools);
    view = new Map(outcomes.map((outcome, index) => [`${outcome.server}/${outcome.tool}`, { tool: tools[index] as Tool, outcome }]));
    byProfile.set(profile, view);
  }
  return view;
}
