import { isModernVersion } from "@pmcp-codegen/runtime/internal";
import { jsonEquals } from "@pmcp-codegen/runtime/internal/json";
import { outputSchemaOf } from "../bundle/output-schema.js";
import type { Bundle, BundleServer, Tool } from "../bundle/types.js";
import { count } from "../count.js";
import { resultTypeName } from "../ir/naming.js";
import { type ChangeLevel, diffSchemas, type SchemaChange } from "./schema-diff.js";

/** One judged difference between two bundles, located by server, tool and pointer. */
export interface BundleChange extends SchemaChange {
  server: string;
  tool?: string;
}

const LEVEL_ORDER: Record<ChangeLevel, number> = { breaking: 0, dangerous: 1, safe: 2 };

/** Every change from `before` to `after`, most severe first, then by server and tool. */
export function diffBundles(before: Bundle, after: Bundle): BundleChange[] {
  const changes: BundleChange[] = [];
  const oldServers = new Map(before.servers.map((server) => [server.id, server]));
  const newServers = new Map(after.servers.map((server) => [server.id, server]));
  for (const id of oldServers.keys()) {
    if (!newServers.has(id))
      changes.push({ server: id, level: "breaking", rule: "server-removed", pointer: "/", message: "server removed" });
  }
  for (const [id, server] of newServers) {
    const previous = oldServers.get(id);
    if (previous === undefined) {
      changes.push({
        server: id,
        level: "safe",
        rule: "server-added",
        pointer: "/",
        message: `server added with ${count(server.tools.length, "tool")}`,
      });
      continue;
    }
    changes.push(...serverChanges(previous, server).map((change) => ({ server: id, ...change })));
    const oldTools = new Map(previous.tools.map((tool) => [tool.name, tool]));
    const newTools = new Map(server.tools.map((tool) => [tool.name, tool]));
    for (const name of oldTools.keys()) {
      if (!newTools.has(name))
        changes.push({ server: id, tool: name, level: "breaking", rule: "tool-removed", pointer: "/", message: "tool removed" });
    }
    for (const [name, tool] of newTools) {
      const old = oldTools.get(name);
      if (old === undefined)
        changes.push({ server: id, tool: name, level: "safe", rule: "tool-added", pointer: "/", message: "tool added" });
      else changes.push(...toolChanges(old, tool).map((change) => ({ server: id, tool: name, ...change })));
    }
  }
  return changes.sort(
    (a, b) => LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] || a.server.localeCompare(b.server) || (a.tool ?? "").localeCompare(b.tool ?? ""),
  );
}

/** The keys of `before` and `after` whose values differ, in the order `after` has them. */
function differingKeys(before: Record<string, unknown>, after: Record<string, unknown>, skip: readonly string[]): string[] {
  return [...new Set([...Object.keys(after), ...Object.keys(before)])].filter(
    (key) => !skip.includes(key) && !jsonEquals(before[key], after[key]),
  );
}

/**
 * What changed about a server beside its tools. The era decides how generated clients connect
 * (a handshake and a session, or neither), so changing it is dangerous; a newer revision of the
 * same era is safe.
 */
function serverChanges(before: BundleServer, after: BundleServer): SchemaChange[] {
  const changes: SchemaChange[] = [];
  const keys = differingKeys(before, after, ["id", "tools"]);
  if (keys.includes("protocolVersion")) {
    const era = (version: unknown) => (typeof version !== "string" ? undefined : isModernVersion(version));
    const [old, now] = [before.protocolVersion, after.protocolVersion];
    const otherEra = era(old) !== era(now);
    changes.push({
      level: otherEra ? "dangerous" : "safe",
      rule: "protocol-version-changed",
      pointer: "/protocolVersion",
      message: `protocolVersion ${old ?? "(none)"} → ${now ?? "(none)"}${otherEra ? ": clients connect in another protocol era" : ""}`,
    });
  }
  const others = keys.filter((key) => key !== "protocolVersion");
  if (others.length > 0) changes.push({ level: "safe", rule: "server-changed", pointer: "/", message: `${others.join(", ")} changed` });
  return changes;
}

/**
 * Every change to a tool: judged where it reaches callers, and else named by key, so that no
 * change of content goes unmentioned (its `_meta`, `execution`, `icons`, a schema's descriptions).
 */
function toolChanges(before: Tool, after: Tool): SchemaChange[] {
  const changes = diffTools(before, after);
  // A judged change's pointer starts with the key it is about; one rule covers title and description.
  const judged = new Set(changes.map((change) => change.pointer.split("/")[1]));
  if (judged.has("description")) judged.add("title");
  const unjudged = differingKeys(before, after, ["name"]).filter((key) => !judged.has(key));
  if (unjudged.length > 0) changes.push({ level: "safe", rule: "tool-changed", pointer: "/", message: `${unjudged.join(", ")} changed` });
  return changes;
}

function diffTools(before: Tool, after: Tool): SchemaChange[] {
  const changes: SchemaChange[] = [];
  changes.push(...prefix("/inputSchema", diffSchemas(before.inputSchema, after.inputSchema, "request")));

  const oldOutput = outputSchemaOf(before);
  const newOutput = outputSchemaOf(after);
  if (oldOutput !== undefined && newOutput === undefined) {
    changes.push({
      level: "breaking",
      rule: "output-schema-removed",
      pointer: oldOutput.pointer,
      message: "no output schema any more: results become untyped",
    });
  } else if (oldOutput === undefined && newOutput !== undefined) {
    changes.push({ level: "safe", rule: "output-schema-added", pointer: newOutput.pointer, message: "declares an output schema now" });
  } else if (oldOutput !== undefined && newOutput !== undefined) {
    changes.push(...prefix(newOutput.pointer, diffSchemas(oldOutput.schema, newOutput.schema, "response")));
  }
  const oldName = resultTypeName(before, oldOutput?.schema);
  const newName = resultTypeName(after, newOutput?.schema);
  if (oldName !== newName && oldOutput !== undefined && newOutput !== undefined) {
    changes.push({
      level: "breaking",
      rule: "output-type-renamed",
      pointer: "/annotations/pmcp:outputTypeName",
      message: `output type ${oldName ?? "(default)"} → ${newName ?? "(default)"} renames generated code`,
    });
  }
  changes.push(...annotationChanges(before.annotations ?? {}, after.annotations ?? {}));
  if (before.description !== after.description || before.title !== after.title) {
    changes.push({ level: "safe", rule: "description-changed", pointer: "/description", message: "title or description changed" });
  }
  return changes;
}

/** Hints with their spec defaults: losing read-only or idempotent, or gaining destructive, is dangerous. */
function annotationChanges(before: Record<string, unknown>, after: Record<string, unknown>): SchemaChange[] {
  const hint = (annotations: Record<string, unknown>, key: string, fallback: boolean) =>
    typeof annotations[key] === "boolean" ? annotations[key] : fallback;
  const changes: SchemaChange[] = [];
  const flips: [string, boolean, boolean, string][] = [
    ["readOnlyHint", false, true, "no longer read-only"],
    ["idempotentHint", false, true, "no longer idempotent: calls are no longer retried"],
    ["destructiveHint", true, false, "now destructive"],
    ["openWorldHint", true, false, "now reaches outside systems"],
  ];
  for (const [key, fallback, wasSafe, message] of flips) {
    const old = hint(before, key, fallback);
    const now = hint(after, key, fallback);
    if (old === now) continue;
    const worse = old === wasSafe;
    changes.push({
      level: worse ? "dangerous" : "safe",
      rule: `${key}-changed`,
      pointer: `/annotations/${key}`,
      message: worse ? message : `${key} ${String(old)} → ${String(now)}`,
    });
  }
  const ignored = new Set([
    "readOnlyHint",
    "idempotentHint",
    "destructiveHint",
    "openWorldHint",
    "pmcp:outputSchema",
    "pmcp:outputTypeName",
  ]);
  const others = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (key) => !ignored.has(key) && !jsonEquals(before[key], after[key]),
  );
  if (others.length > 0)
    changes.push({
      level: "safe",
      rule: "annotations-changed",
      pointer: "/annotations",
      message: `annotations changed: ${others.join(", ")}`,
    });
  return changes;
}

function prefix(at: string, changes: SchemaChange[]): SchemaChange[] {
  return changes.map((change) => ({ ...change, pointer: change.pointer === "/" ? at : `${at}${change.pointer}` }));
}
