import { errorMessage } from "@pmcp-codegen/runtime/internal";
import { ToolDefinitionError } from "./errors.js";
import type { ManifestTool } from "./manifest.js";

/** Each module's class instances, by class name: a class is constructed once, however many servers serve it. */
const instances = new WeakMap<object, Map<string, unknown>>();

/**
 * The call a tool's arguments go to: the module's function, or the method of the module's one
 * instance of `tool.class`; with the arguments object, or spread as `tool.parameters` says.
 * Throws when the module lacks what the manifest names or the instance cannot be made.
 */
export function toolTarget(
  tool: ManifestTool,
  module: Record<string, unknown>,
  source: string,
): (args: Record<string, unknown>) => unknown {
  const call = tool.class === undefined ? functionCall(tool, module, source) : methodCall(tool, tool.class, module, source);
  const { parameters } = tool;
  if (parameters === undefined) return call;
  // Missing arguments are passed as undefined, so the function's own defaults apply.
  return (args) => call(...parameters.map((name) => (Object.hasOwn(args, name) ? args[name] : undefined)));
}

function functionCall(tool: ManifestTool, module: Record<string, unknown>, source: string): (...args: unknown[]) => unknown {
  const run = exported(module, tool.function);
  if (typeof run !== "function") {
    throw new ToolDefinitionError(
      "MISSING_FUNCTION",
      `${source}: tool "${tool.name}" needs the function "${tool.function}", which the module does not export`,
    );
  }
  return run as (...args: unknown[]) => unknown;
}

function methodCall(
  tool: ManifestTool,
  owner: NonNullable<ManifestTool["class"]>,
  module: Record<string, unknown>,
  source: string,
): (...args: unknown[]) => unknown {
  const instance = instanceOf(owner, module, source);
  // A factory may be async: its promise is awaited at each call, so it still runs once.
  return async (...args) => {
    const self: unknown = await instance;
    const run = typeof self === "object" && self !== null ? (self as Record<string, unknown>)[tool.function] : undefined;
    if (typeof run !== "function") throw new Error(`${owner.name} has no method "${tool.function}"`);
    return run.apply(self, args);
  };
}

function instanceOf(owner: NonNullable<ManifestTool["class"]>, module: Record<string, unknown>, source: string): unknown {
  const made = instances.get(module) ?? new Map<string, unknown>();
  instances.set(module, made);
  if (made.has(owner.name)) return made.get(owner.name);
  const maker = owner.factory ?? owner.name;
  const make = exported(module, maker);
  if (typeof make !== "function") {
    throw new ToolDefinitionError(
      "MISSING_FUNCTION",
      `${source}: class "${owner.name}" needs the ${owner.factory === undefined ? "class" : "factory"} "${maker}", which the module does not export`,
    );
  }
  let instance: unknown;
  try {
    instance = owner.factory === undefined ? new (make as new () => unknown)() : (make as () => unknown)();
  } catch (error) {
    throw new ToolDefinitionError(
      "INSTANCE_FAILED",
      `${source}: ${maker}${owner.factory === undefined ? " could not be constructed" : " failed"}: ${errorMessage(error)}`,
      {
        cause: error,
      },
    );
  }
  made.set(owner.name, instance);
  return instance;
}

function exported(module: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(module, name) ? module[name] : undefined;
}
