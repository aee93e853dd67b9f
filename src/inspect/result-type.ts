import { DEFAULT_MIN_QUALITY } from "../bundle/quality.js";
import type { BundleServer } from "../bundle/types.js";
import { planServerModule, type ServerModulePlan } from "../codegen/plan.js";

/**
 * The TypeScript `pmcp generate` emits for one tool's result: `type <Name> = …;` and then
 * every named helper type it refers to, directly or through another helper. Names keep the
 * generated module's `rt.` prefix (`rt.ToolResult`, `rt.JsonValue`), so they read the same as the generated client.
 */
export function resultTypeOf(server: BundleServer, toolIndex: number): string {
  const plan = planOf(server);
  const tool = plan.tools[toolIndex];
  if (tool === undefined) throw new Error(`no tool at index ${toolIndex} of server "${server.id}"`);
  // A type learned from observations is not what the method returns alone: say so, or a caller would read `.field` off the result.
  const returned =
    tool.returnType === tool.resultType
      ? []
      : [`// The method returns ${tool.returnType}: the result as sent (.text, .get(), .json(), …) with this type in .value.`];
  return [...returned, `type ${tool.resultType} = ${tool.resultTypeCode};`, ...helperTypes(plan, tool.resultRefs)].join("\n");
}

/** `type <Name> = …;` for every named helper type `refs` reach, directly or through another helper, each once. */
export function helperTypes(plan: ServerModulePlan, refs: readonly string[]): string[] {
  const definitions = new Map(plan.definitions.map((definition) => [definition.name, definition]));
  const lines: string[] = [];
  const included = new Set<string>();
  const pending = [...refs];
  for (let name = pending.shift(); name !== undefined; name = pending.shift()) {
    const definition = definitions.get(name);
    if (definition === undefined || included.has(name)) continue;
    included.add(name);
    lines.push(`type ${name} = ${definition.type};`);
    pending.push(...definition.refs);
  }
  return lines;
}

/** Planned once per server: the inspect server answers many inspect_tool calls from one bundle. */
const plans = new WeakMap<BundleServer, ServerModulePlan>();

function planOf(server: BundleServer): ServerModulePlan {
  let plan = plans.get(server);
  if (plan === undefined) {
    // The same options as `pmcp generate`'s defaults, so the type shown is the type generated.
    plan = planServerModule(server, { strictObjects: false, minQuality: DEFAULT_MIN_QUALITY });
    plans.set(server, plan);
  }
  return plan;
}
