/**
 * Compares two versions of one tool schema through the generator's IR (so `$ref`s,
 * nullables and dialects are resolved the same way) and judges each difference by
 * direction: an input schema describes requests callers send, an output schema
 * responses callers parse. Levels follow graphql-inspector and oasdiff.
 */

import { jsonEquals } from "@pmcp-codegen/runtime/internal/json";
import { count } from "../count.js";
import type { IRNode, NamedDefinition, ObjectNode } from "../ir/ir.js";
import { IRBuilder } from "../ir/json-schema-to-ir.js";
import { NameScope } from "../ir/naming.js";
import { escapePointer, resolvePointer } from "../json-schema/pointer.js";

/** How a change affects callers: `breaking` breaks them, `dangerous` may change what their calls do, `safe` neither. */
export type ChangeLevel = "breaking" | "dangerous" | "safe";
export type Direction = "request" | "response";

export interface SchemaChange {
  level: ChangeLevel;
  rule: string;
  /** JSON-pointer-like path of the changed part, e.g. `/properties/items/items/properties/id`. */
  pointer: string;
  message: string;
}

type Scope = { node: IRNode; definitions: Map<string, NamedDefinition> };

/** What one comparison carries down the tree. */
interface Walk {
  direction: Direction;
  changes: SchemaChange[];
  /** Pairs of definition names (before, after) already compared: each is compared once. */
  visited: Set<string>;
}

/** Every change between `before` and `after`, judged for `direction`. */
export function diffSchemas(before: unknown, after: unknown, direction: Direction): SchemaChange[] {
  const walk: Walk = { direction, changes: [], visited: new Set() };
  const old = toIR(before);
  const now = toIR(after);
  compare(walk, old, now, "");
  return [...walk.changes, ...beyondTheIR(before, after, [...old.tooDeep, ...now.tooDeep])];
}

function toIR(schema: unknown): Scope & { tooDeep: string[] } {
  const builder = new IRBuilder(new NameScope());
  const node = schema === undefined ? ({ kind: "unknown" } as const) : builder.build(schema, "", "");
  return { node, definitions: new Map(builder.definitions.map((definition) => [definition.name, definition])), tooDeep: builder.tooDeep };
}

/**
 * The IR stops at a nesting limit (hostile input); so that no depth hides a change, the parts
 * below it are compared as JSON. A part reached through a `$ref` (`…→#/$defs/X/…`) is located
 * by that reference when it is a pointer, else by the whole schema.
 */
function beyondTheIR(before: unknown, after: unknown, cut: readonly string[]): SchemaChange[] {
  const located = new Set(
    cut.map((pointer) => {
      const through = pointer.split("→").pop()!;
      if (through === pointer) return pointer;
      try {
        return through.startsWith("#/") ? decodeURIComponent(through.slice(1)) : "";
      } catch {
        return "";
      }
    }),
  );
  return [...located]
    .filter((pointer) => !jsonEquals(resolvePointer(before, pointer), resolvePointer(after, pointer)))
    .map((pointer) => ({
      level: "dangerous",
      rule: "nested-too-deep",
      pointer: pointer || "/",
      message: "changed where the schema nests too deep to compare in detail",
    }));
}

/** Narrowing a request or widening a response breaks callers; the opposite is safe. */
function judge(direction: Direction, change: "narrowed" | "widened"): ChangeLevel {
  return (direction === "request") === (change === "narrowed") ? "breaking" : "safe";
}

const TYPES = ["null", "boolean", "integer", "number", "string", "array", "object"] as const;
type JsonType = (typeof TYPES)[number];

/** The JSON types a node admits (`integer` ⊂ `number`). */
function typesOf(node: IRNode, scope: Scope, seen = new Set<string>()): Set<JsonType> {
  switch (node.kind) {
    case "unknown":
    case "check":
      return new Set(TYPES);
    case "never":
      return new Set();
    case "null":
    case "boolean":
    case "string":
    case "array":
    case "object":
      return new Set([node.kind]);
    case "tuple":
      return new Set(["array"]);
    case "number":
      return new Set(node.integer ? ["integer"] : ["integer", "number"]);
    case "literals":
      return new Set(
        node.values.map((value) =>
          value === null
            ? "null"
            : Array.isArray(value)
              ? "array"
              : typeof value === "object"
                ? "object"
                : typeof value === "number"
                  ? Number.isInteger(value)
                    ? "integer"
                    : "number"
                  : (typeof value as JsonType),
        ),
      );
    case "union":
      return new Set(node.members.flatMap((member) => [...typesOf(member, scope, seen)]));
    case "intersection": {
      const sets = node.members.map((member) => typesOf(member, scope, seen));
      return new Set(TYPES.filter((type) => sets.every((set) => set.has(type))));
    }
    case "ref": {
      if (seen.has(node.name)) return new Set(TYPES);
      seen.add(node.name);
      return typesOf(scope.definitions.get(node.name)?.node ?? { kind: "unknown" }, scope, seen);
    }
  }
}

/** The node a reference stands for, through chains of references; a reference cycle admits anything. */
function deref(node: IRNode, scope: Scope): IRNode {
  const seen = new Set<string>();
  let current = node;
  while (current.kind === "ref") {
    if (seen.has(current.name)) return { kind: "unknown" };
    seen.add(current.name);
    current = scope.definitions.get(current.name)?.node ?? { kind: "unknown" };
  }
  return current;
}

/** The single member of a kind, looking through one union (how objects inside nullables are compared); not dereferenced. */
function only(node: IRNode, kind: IRNode["kind"], scope: Scope): IRNode | undefined {
  if (deref(node, scope).kind === kind) return node;
  if (node.kind !== "union") return undefined;
  const members = node.members.filter((member) => deref(member, scope).kind === kind);
  return members.length === 1 ? members[0] : undefined;
}

/**
 * Two references to definitions are compared once per pair of names, at the new definition's own
 * pointer: a change inside a recursive or shared definition is reported once, and recursion ends.
 * A reference against an inline schema is looked through: the inline side is finite.
 */
function compare(walk: Walk, before: Scope, after: Scope, pointer: string): void {
  if (before.node.kind === "ref" && after.node.kind === "ref") {
    const key = `${before.node.name}\u0000${after.node.name}`;
    if (walk.visited.has(key)) return;
    walk.visited.add(key);
    const old = before.definitions.get(before.node.name);
    const now = after.definitions.get(after.node.name);
    compare(
      walk,
      { ...before, node: old?.node ?? { kind: "unknown" } },
      { ...after, node: now?.node ?? { kind: "unknown" } },
      now?.pointer ?? pointer,
    );
    return;
  }
  if (before.node.kind === "ref" || after.node.kind === "ref") {
    compare(walk, { ...before, node: deref(before.node, before) }, { ...after, node: deref(after.node, after) }, pointer);
    return;
  }
  compareInline(walk, before, after, pointer);
}

/** Neither node is a reference. */
function compareInline(walk: Walk, before: Scope, after: Scope, pointer: string): void {
  const { direction, changes } = walk;
  const add = (level: ChangeLevel, rule: string, message: string, at = pointer) =>
    changes.push({ level, rule, pointer: at || "/", message });

  const old = before.node;
  const now = after.node;
  if (old.kind === "unknown" && now.kind !== "unknown") {
    add(judge(direction, "narrowed"), "schema-declared", "a schema now constrains what was any JSON value");
    return;
  }
  if (now.kind === "unknown" && old.kind !== "unknown") {
    add(judge(direction, "widened"), "schema-dropped", "any JSON value is now allowed where a schema constrained it");
    return;
  }

  const oldTypes = typesOf(old, before);
  const newTypes = typesOf(now, after);
  const lost = [...oldTypes].filter((type) => !newTypes.has(type));
  const gained = [...newTypes].filter((type) => !oldTypes.has(type));
  if (lost.length > 0 && gained.length > 0)
    add("breaking", "type-changed", `type changed from ${[...oldTypes].join("|")} to ${[...newTypes].join("|")}`);
  else if (lost.length > 0)
    add(
      judge(direction, "narrowed"),
      lost.includes("null") && lost.length === 1 ? "no-longer-nullable" : "type-narrowed",
      `no longer accepts ${lost.join(", ")}`,
    );
  else if (gained.length > 0)
    add(
      judge(direction, "widened"),
      gained.includes("null") && gained.length === 1 ? "now-nullable" : "type-widened",
      `now also ${gained.join(", ")}`,
    );

  compareLiterals(old, now, direction, add);
  compareConstraints(old, now, direction, add);

  // A member found inside a union is compared as a whole (it may be a reference); the node itself, field by field.
  for (const kind of ["object", "array", "tuple"] as const) {
    const oldMember = only(old, kind, before);
    const newMember = only(now, kind, after);
    if (oldMember === undefined || newMember === undefined) continue;
    if (oldMember !== old || newMember !== now) compare(walk, { ...before, node: oldMember }, { ...after, node: newMember }, pointer);
    else compareMembers(walk, before, after, pointer, add);
  }
}

/** Both nodes are of one kind: objects, arrays or tuples. */
function compareMembers(walk: Walk, before: Scope, after: Scope, pointer: string, add: Add): void {
  const old = before.node;
  const now = after.node;
  if (old.kind === "object" && now.kind === "object") compareObjects(walk, before, after, pointer, add);
  if (old.kind === "array" && now.kind === "array")
    compare(walk, { ...before, node: old.items }, { ...after, node: now.items }, `${pointer}/items`);
  if (old.kind === "tuple" && now.kind === "tuple") {
    const length = Math.min(old.items.length, now.items.length);
    for (let index = 0; index < length; index++) {
      compare(walk, { ...before, node: old.items[index]! }, { ...after, node: now.items[index]! }, `${pointer}/prefixItems/${index}`);
    }
    if (old.items.length !== now.items.length)
      add("breaking", "tuple-length-changed", `tuple has ${count(now.items.length, "position")}, had ${old.items.length}`);
  }
}

type Add = (level: ChangeLevel, rule: string, message: string, at?: string) => void;

/** `before.node` and `after.node` are the two object nodes. */
function compareObjects(walk: Walk, before: Scope, after: Scope, pointer: string, add: Add): void {
  const old = before.node as ObjectNode;
  const now = after.node as ObjectNode;
  const { direction } = walk;
  const oldProperties = new Map(old.properties.map((property) => [property.name, property]));
  const newProperties = new Map(now.properties.map((property) => [property.name, property]));
  for (const [name, property] of oldProperties) {
    const at = `${pointer}/properties/${escapePointer(name)}`;
    const next = newProperties.get(name);
    if (next === undefined) {
      add("breaking", "property-removed", `property "${name}" removed`, at);
      continue;
    }
    if (property.required && !next.required) {
      add(judge(direction, "widened"), "property-now-optional", `property "${name}" is now optional`, at);
    } else if (!property.required && next.required) {
      add(judge(direction, "narrowed"), "property-now-required", `property "${name}" is now required`, at);
    }
    compare(walk, { ...before, node: property.node }, { ...after, node: next.node }, at);
  }
  for (const [name, property] of newProperties) {
    if (oldProperties.has(name)) continue;
    const at = `${pointer}/properties/${escapePointer(name)}`;
    if (property.required && direction === "request") add("breaking", "required-property-added", `new required property "${name}"`, at);
    else add("safe", "property-added", `new ${property.required ? "required" : "optional"} property "${name}"`, at);
  }
  if (old.additional !== false && now.additional === false)
    add(judge(direction, "narrowed"), "additional-properties-closed", "no longer allows undeclared properties");
  if (old.additional === false && now.additional !== false)
    add(judge(direction, "widened"), "additional-properties-opened", "now allows undeclared properties");
}

function compareLiterals(
  old: IRNode,
  now: IRNode,
  direction: Direction,
  add: (level: ChangeLevel, rule: string, message: string) => void,
): void {
  if (old.kind !== "literals" || now.kind !== "literals") return;
  const key = (value: unknown) => JSON.stringify(value);
  const oldValues = new Set(old.values.map(key));
  const newValues = new Set(now.values.map(key));
  const removed = [...oldValues].filter((value) => !newValues.has(value));
  const added = [...newValues].filter((value) => !oldValues.has(value));
  if (removed.length > 0)
    add(
      judge(direction, "narrowed"),
      "enum-value-removed",
      `value${removed.length > 1 ? "s" : ""} ${removed.join(", ")} no longer allowed`,
    );
  if (added.length > 0) add(judge(direction, "widened"), "enum-value-added", `new value${added.length > 1 ? "s" : ""} ${added.join(", ")}`);
}

/** Lower bounds (`min…`) and upper bounds (`max…`), and whether a number must be an integer. */
const LOWER = ["minLength", "minimum", "exclusiveMinimum", "minItems", "minProperties"] as const;
const UPPER = ["maxLength", "maximum", "exclusiveMaximum", "maxItems", "maxProperties"] as const;

function compareConstraints(
  old: IRNode,
  now: IRNode,
  direction: Direction,
  add: (level: ChangeLevel, rule: string, message: string) => void,
): void {
  if (old.kind !== now.kind) return;
  const a = old as unknown as Record<string, unknown>;
  const b = now as unknown as Record<string, unknown>;
  for (const bound of [...LOWER, ...UPPER]) {
    const before = a[bound];
    const after = b[bound];
    if (before === after) continue;
    const lower = (LOWER as readonly string[]).includes(bound);
    // A new bound, a raised minimum or a lowered maximum admits fewer values.
    const narrowed = typeof before !== "number" ? true : typeof after !== "number" ? false : lower ? after > before : after < before;
    add(
      judge(direction, narrowed ? "narrowed" : "widened"),
      narrowed ? "constraint-tightened" : "constraint-loosened",
      `${bound} ${String(before ?? "none")} → ${String(after ?? "none")}`,
    );
  }
  for (const keyword of ["pattern", "format", "multipleOf"]) {
    if (a[keyword] !== b[keyword]) {
      const level: ChangeLevel =
        b[keyword] === undefined ? judge(direction, "widened") : a[keyword] === undefined ? judge(direction, "narrowed") : "breaking";
      add(level, `${keyword}-changed`, `${keyword} ${JSON.stringify(a[keyword] ?? null)} → ${JSON.stringify(b[keyword] ?? null)}`);
    }
  }
  if (a.uniqueItems !== b.uniqueItems)
    add(
      judge(direction, b.uniqueItems ? "narrowed" : "widened"),
      "unique-items-changed",
      `uniqueItems ${String(a.uniqueItems ?? false)} → ${String(b.uniqueItems ?? false)}`,
    );
}
