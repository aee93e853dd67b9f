import type { Schema } from "./keywords.js";
import { isObject } from "./pointer.js";

/** Whether `type` is `name` or a type array holding it. */
export function typeIncludes(node: Schema, name: string): boolean {
  return node.type === name || (Array.isArray(node.type) && node.type.includes(name));
}

/**
 * Whether a node is an object schema by its own keywords: `type: "object"`, or no `type` but
 * `properties` or `required`. A type array naming "object" does not count: it admits other types too.
 */
export function describesObject(node: Schema): boolean {
  return node.type === "object" || (node.type === undefined && (isObject(node.properties) || node.required !== undefined));
}

/** A member typed null, whatever else it says (a union member that admits null). */
export function isNullTyped(member: unknown): boolean {
  return isObject(member) && member.type === "null";
}

/** Exactly `{type: "null"}`: a member that means only null and can be replaced by a nullable flag. */
export function isBareNull(member: unknown): boolean {
  return isObject(member) && member.type === "null" && Object.keys(member).length === 1;
}

/** Whether a JSON value nests deeper than `limit` arrays and objects; an explicit stack, since it may nest thousands deep. */
export function valueDeeperThan(value: unknown, limit: number): boolean {
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [item, depth] = pending.pop()!;
    if (typeof item !== "object" || item === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}
