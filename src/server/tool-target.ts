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
  const first = instanceOf(owner, module, source);
  // An instance made at once is checked at once, like a module's functions.
  if (!(first instanceof Promise) && methodOf(first, tool.function) === undefined) {
    throw new ToolDefinitionError(
      "MISSING_FUNCTION",
      `${source}: tool "${tool.name}" needs the method "${tool.function}", which ${owner.name} lacks`,
    );
  }
  return async (...args) => {
    // Again at each call: a factory that failed is tried again.
    const self: unknown = await instanceOf(owner, module, source);
    const run = methodOf(self, tool.function);
    if (run === undefined) throw new Error(`${owner.name} has no method "${tool.function}"`);
    return run.apply(self, args);
  };
}

function methodOf(self: unknown, name: string): ((...args: unknown[]) => unknown) | undefined {
  const method = typeof self === "object" && self !== null ? (self as Record<string, unknown>)[name] : undefined;
  return typeof method === "function" ? (method as (...args: unknown[]) => unknown) : undefined;
}

/**
 * The module's instance of a class, made on first use. A factory's promise is kept and awaited by
 * each call; if it rejects, the calls answer with the failure and the next one tries again, and the
 * server lives on (a rejection nobody awaits yet would end the process).
 */
function instanceOf(owner: NonNullable<ManifestTool["class"]>, module: Record<string, unknown>, source: string): unknown {
  const made = instances.get(module) ?? new Map<string, unknown>();
  instances.set(module, made);
  if (made.has(owner.name)) return made.get(owner.name);
  const maker = owner.factory ?? owner.name;
  const make = exported(module, maker);
  if (typeof make !== "function") {
    const what = owner.factory === undefined ? "class" : "factory";
    throw new ToolDefinitionError(
      "MISSING_FUNCTION",
      make === undefined
        ? `${source}: class "${owner.name}" needs the ${what} "${maker}", which the module does not export`
        : `${source}: class "${owner.name}" needs the ${what} "${maker}", which the module exports but is not a function`,
    );
  }
  const failed = (error: unknown) =>
    `${maker}${owner.factory === undefined ? " could not be constructed" : " failed"}: ${errorMessage(error)}`;
  let instance: unknown;
  try {
    instance = owner.factory === undefined ? new (make as new () => unknown)() : (make as () => unknown)();
  } catch (error) {
    throw new ToolDefinitionError("INSTANCE_FAILED", `${source}: ${failed(error)}`, { cause: error });
  }
  if (instance instanceof Promise) {
    const pending = instance.catch((error: unknown) => {
      made.delete(owner.name);
      throw new Error(failed(error), { cause: error });
    });
    // Handled here; each call awaits `pending` and answers with its failure.
    pending.catch(() => undefined);
    made.set(owner.name, pending);
    return pending;
  }
  made.set(owner.name, instance);
  return instance;
}

function exported(module: Record<string, unknown>, name: string): unknown {
  return Object.hasOwn(module, name) ? module[name] : undefined;
}
