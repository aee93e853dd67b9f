import type { IRNode, JsonValue, ObjectNode, TupleNode } from "../ir/ir.js";
import { docComment, literal, typeKey } from "./code.js";
import { type Emitted, noUses, type Uses } from "./uses.js";

/** The runtime namespace generated modules import (`import * as rt from ...`). */
export const RUNTIME = "rt";

/**
 * IR → TypeScript type expression. Objects are type literals (not interfaces), so
 * they keep TypeScript's implicit index signature and stay assignable both ways
 * with the types zod infers for lenient objects.
 */
export function emitType(node: IRNode): Emitted {
  const uses = noUses();
  return { code: typeOf(node, "", uses), uses };
}

function typeOf(node: IRNode, indent: string, uses: Uses): string {
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
      return `Array<${typeOf(node.items, indent, uses)}>`;
    case "tuple":
      return tupleType(node, indent, uses);
    case "object":
      return objectType(node, indent, uses);
    case "union":
      return node.members.map((member) => typeOf(member, indent, uses)).join(" | ");
    case "intersection": {
      // Run-time checks narrow no static type.
      const typed = node.members.filter((member) => member.kind !== "check");
      if (typed.length === 0) return `${RUNTIME}.JsonValue`;
      return typed.map((member) => wrap(member, typeOf(member, indent, uses))).join(" & ");
    }
    case "ref":
      uses.refs.add(node.name);
      return node.name;
    case "check":
      return `${RUNTIME}.JsonValue`;
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
function literalType(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(literalType).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([key, item]) => `${typeKey(key)}: ${literalType(item)}`);
    return entries.length === 0 ? "{}" : `{ ${entries.join("; ")} }`;
  }
  return literal(value);
}

function tupleType(node: TupleNode, indent: string, uses: Uses): string {
  const items = node.items.map((item, index) =>
    index < node.required ? typeOf(item, indent, uses) : `${wrapAny(item, typeOf(item, indent, uses))}?`,
  );
  if (node.rest !== null) items.push(`...Array<${typeOf(node.rest, indent, uses)}>`);
  return `[${items.join(", ")}]`;
}

function objectType(node: ObjectNode, indent: string, uses: Uses): string {
  const inner = `${indent}  `;
  const members = node.properties.map(
    (property) =>
      `${property.description ? docComment([property.description], inner) : ""}${inner}${typeKey(property.name)}${property.required ? "" : "?"}: ${typeOf(property.node, inner, uses)};\n`,
  );
  // `{}` would admit strings and numbers; an open object with no declared keys is a string map.
  const shape =
    members.length === 0 ? (node.additional === true ? "{ [key: string]: unknown }" : "{}") : `{\n${members.join("")}${indent}}`;
  const indexed = indexedValues(node);
  if (indexed.length === 0) return shape;
  const values = [...new Set(indexed.map((value) => typeOf(value, indent, uses)))];
  if (node.properties.length === 0) return `{ [key: string]: ${values.join(" | ")} }`;
  // Declared keys must also fit the index signature, so it admits their types too.
  const all = [...values, ...node.properties.map((property) => typeOf(property.node, indent, uses))];
  return `${shape} & { [key: string]: ${[...new Set(all)].join(" | ")} }`;
}

/**
 * The nodes an index signature must admit: pattern values and `additionalProperties`; none
 * when undeclared keys may hold anything (no index signature then).
 */
export function indexedValues(node: ObjectNode): IRNode[] {
  if (node.additional === true) return [];
  return [...(node.patterns ?? []).map((pattern) => pattern.node), ...(node.additional === false ? [] : [node.additional])];
}
