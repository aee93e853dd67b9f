import { docComment, literal, typeKey } from "./code.js";
import type { IRNode, JsonValue, ObjectNode, TupleNode } from "../ir/ir.js";

/** The runtime namespace generated modules import (`import * as rt from ...`). */
export const RUNTIME = "rt";

/**
 * IR → TypeScript type expression. Objects are type literals (not interfaces), so
 * they keep TypeScript's implicit index signature and stay assignable both ways
 * with the types zod infers for lenient objects.
 */
export function emitType(node: IRNode, indent = ""): string {
  switch (node.kind) {
    case "unknown":
      return `${RUNTIME}.JsonValue`;
    case "never":
    case "null":
    case "boolean":
    case "string":
    case "number":
      return node.kind;
    case "literals":
      return node.values.map(literalType).join(" | ");
    case "array":
      return `Array<${emitType(node.items, indent)}>`;
    case "tuple":
      return tupleType(node, indent);
    case "object":
      return objectType(node, indent);
    case "union":
      return node.members.map((member) => emitType(member, indent)).join(" | ");
    case "intersection":
      return node.members.map((member) => wrap(member, emitType(member, indent))).join(" & ");
    case "ref":
      return node.name;
  }
}

function wrap(node: IRNode, text: string): string {
  return node.kind === "union" || (node.kind === "literals" && node.values.length > 1) ? `(${text})` : text;
}

/** Before `?` in a tuple, unions and intersections need parentheses too. */
function wrapAny(node: IRNode, text: string): string {
  return node.kind === "intersection" ? `(${text})` : wrap(node, text);
}

/** A const or enum value as a type: primitives as literal types, arrays as tuples, objects as type literals. */
export function literalType(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(literalType).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([key, item]) => `${typeKey(key)}: ${literalType(item)}`);
    return entries.length === 0 ? "{}" : `{ ${entries.join("; ")} }`;
  }
  return literal(value);
}

function tupleType(node: TupleNode, indent: string): string {
  const items = node.items.map((item, index) => (index < node.required ? emitType(item, indent) : `${wrapAny(item, emitType(item, indent))}?`));
  if (node.rest !== null) items.push(`...Array<${emitType(node.rest, indent)}>`);
  return `[${items.join(", ")}]`;
}

function objectType(node: ObjectNode, indent: string): string {
  const inner = `${indent}  `;
  const members = node.properties.map(
    (property) =>
      `${property.description ? docComment([property.description], inner) : ""}${inner}${typeKey(property.name)}${property.required ? "" : "?"}: ${emitType(property.node, inner)};\n`,
  );
  // `{}` would admit strings and numbers; an open object with no declared keys is a string map.
  const shape = members.length === 0 ? (node.additional === true ? "{ [key: string]: unknown }" : "{}") : `{\n${members.join("")}${indent}}`;
  if (typeof node.additional === "boolean") return shape;
  const values = emitType(node.additional, indent);
  if (node.properties.length === 0) return `{ [key: string]: ${values} }`;
  // Declared keys must also fit the index signature, so it admits their types too.
  const all = [values, ...node.properties.map((property) => emitType(property.node, indent))];
  return `${shape} & { [key: string]: ${[...new Set(all)].join(" | ")} }`;
}
