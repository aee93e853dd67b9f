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
