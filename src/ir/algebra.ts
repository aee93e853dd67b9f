import { jsonTypeOf } from "@pmcp-codegen/runtime/internal/json";
import type { IRNode, ObjectNode, PropertyNode } from "./ir.js";

/**
 * All of `nested` at once, as the builder takes what a schema's keywords say side by side
 * (`$ref`, `type`, `allOf`, checks). When one part is an object, union members of other kinds
 * cannot match and are dropped, and open objects (no `additionalProperties`) merge into
 * one: the same instances, and one type literal instead of an intersection.
 */
export function intersect(nested: IRNode[]): IRNode {
  const parts = nested.flatMap((part) => (part.kind === "intersection" ? part.members : [part]));
  let meaningful: IRNode[] = parts.filter((part) => part.kind !== "unknown");
  if (meaningful.length > 1) {
    // The same part twice (a typeless schema beside its `allOf`) constrains once.
    const texts = meaningful.map((part) => JSON.stringify(part));
    meaningful = meaningful.filter((_part, index) => texts.indexOf(texts[index]!) === index);
  }
  if (meaningful.some((part) => part.kind === "object")) {
    meaningful = meaningful.map((part) => (part.kind === "union" ? onlyObjectMembers(part) : part));
  }
  if (meaningful.some((part) => part.kind === "never")) return { kind: "never" };
  // A bare `string` (or `boolean`, `null`) beside a constrained one of its kind adds nothing.
  meaningful = meaningful.filter(
    (part) => !(Object.keys(part).length === 1 && meaningful.some((other) => other !== part && other.kind === part.kind)),
  );
  const distributed = distribute(meaningful);
  if (distributed !== undefined) return distributed;
  const open = meaningful.filter((part): part is ObjectNode => part.kind === "object" && part.additional === true);
  if (open.length > 1) meaningful = [mergeObjects(open), ...meaningful.filter((part) => !open.includes(part as ObjectNode))];
  if (meaningful.length === 0) return { kind: "unknown" };
  return meaningful.length === 1 ? meaningful[0]! : { kind: "intersection", members: meaningful };
}

/**
 * An intersection with `anyOf`s of several JSON types (what typeless schemas produce), as
 * one union member per JSON type: `(string | {a}) & (string | {b})` is `string | ({a} & {b})`.
 * Each member then types as one object or one primitive, as the parsers infer it; exact,
 * since an instance has one JSON type. Checks stay outside.
 */
function distribute(parts: IRNode[]): IRNode | undefined {
  const typed = parts.filter((part) => part.kind !== "check");
  const unions = typed.filter((part): part is Extract<IRNode, { kind: "union" }> => part.kind === "union" && !part.exactlyOne);
  const single = (member: IRNode) => jsonTypes([member]).size === 1;
  if (typed.length < 2 || !unions.some((union) => new Set(union.members.map((member) => [...jsonTypes([member])].join())).size > 1)) {
    return undefined;
  }
  if (!unions.every((union) => union.members.every(single))) return undefined;
  const members = ALL_TYPES.flatMap((type) => {
    const restricted = typed.map((part) => {
      if (!unions.includes(part as Extract<IRNode, { kind: "union" }>)) return jsonTypes([part]).has(type) ? part : undefined;
      const kept = (part as Extract<IRNode, { kind: "union" }>).members.filter((member) => jsonTypes([member]).has(type));
      return kept.length === 0
        ? undefined
        : kept.length === 1
          ? kept[0]
          : { ...(part as Extract<IRNode, { kind: "union" }>), members: kept };
    });
    if (restricted.some((part) => part === undefined)) return [];
    const member = intersect(restricted as IRNode[]);
    return member.kind === "never" ? [] : [member];
  });
  const union: IRNode =
    members.length === 0 ? { kind: "never" } : members.length === 1 ? members[0]! : { kind: "union", members, exactlyOne: false };
  const checks = parts.filter((part) => part.kind === "check");
  return checks.length === 0 || union.kind === "never" ? union : { kind: "intersection", members: [union, ...checks] };
}

const ALL_TYPES = ["null", "boolean", "number", "string", "array", "object"];

/** The JSON types all of `nodes` admit at once (integers count as numbers). */
function jsonTypes(nodes: IRNode[]): Set<string> {
  const of = (node: IRNode): string[] => {
    switch (node.kind) {
      case "null":
      case "boolean":
      case "string":
      case "number":
      case "array":
      case "object":
        return [node.kind];
      case "tuple":
        return ["array"];
      case "never":
        return [];
      case "literals":
        return node.values.map((value) => jsonTypeOf(value));
      case "union":
        return node.members.flatMap(of);
      case "intersection":
        return [...jsonTypes(node.members)];
      default:
        return ALL_TYPES;
    }
  };
  return new Set(nodes.reduce((shared, node) => shared.filter((type) => of(node).includes(type)), ALL_TYPES));
}

/** A union seen through an object: only members that can be objects remain. */
function onlyObjectMembers(union: Extract<IRNode, { kind: "union" }>): IRNode {
  const members = union.members
    .map((member) => (member.kind === "union" ? onlyObjectMembers(member) : member))
    .filter((member) => !["null", "boolean", "string", "number", "array", "tuple", "never"].includes(member.kind));
  if (members.length === 0) return { kind: "never" };
  // One member left: "at least one" and "exactly one" mean the same.
  if (members.length === 1) return members[0]!;
  return { ...union, members };
}

/** Open objects as one: every property (a property several declare must match each), the tightest bounds. */
function mergeObjects(objects: ObjectNode[]): ObjectNode {
  const properties = new Map<string, PropertyNode>();
  for (const object of objects) {
    for (const property of object.properties) {
      const seen = properties.get(property.name);
      properties.set(
        property.name,
        seen === undefined
          ? property
          : { ...seen, node: intersect([seen.node, property.node]), required: seen.required || property.required },
      );
    }
  }
  const patterns = objects.flatMap((object) => object.patterns ?? []);
  const mins = objects.flatMap((object) => (object.minProperties === undefined ? [] : [object.minProperties]));
  const maxes = objects.flatMap((object) => (object.maxProperties === undefined ? [] : [object.maxProperties]));
  return {
    kind: "object",
    properties: [...properties.values()],
    additional: true,
    ...(patterns.length ? { patterns } : {}),
    ...(mins.length ? { minProperties: Math.max(...mins) } : {}),
    ...(maxes.length ? { maxProperties: Math.min(...maxes) } : {}),
  };
}
