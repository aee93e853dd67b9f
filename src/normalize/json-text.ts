import { appendText } from "../json-schema/annotations.js";
import type { Schema } from "../json-schema/keywords.js";
import { isObject } from "../json-schema/pointer.js";
import { isNullTyped, typeIncludes } from "../json-schema/predicates.js";
import { mapSchemas } from "../json-schema/traverse.js";
import type { PassContext } from "./passes.js";

/**
 * The encoding of values no provider form keeps the shape of: JSON text. A free-form value, an
 * open record under a strict mode, an object with no declared properties become
 * `{"type": "string", "description": "… (JSON text)"}`; the model writes the value as JSON, and
 * `restoreArguments` parses it back where (and only where) this pass put it.
 */

/** What a JSON-text node's description ends with, so the model knows to write JSON. */
export const JSON_TEXT_NOTE = "(JSON text)";

/**
 * Marks a node this pass wrote, until `collectEncoding` removes the mark and records the node.
 * A key no provider ever sees: normalizing removes it from the input first (`withoutMarks`), so a
 * server cannot have its own strings parsed.
 */
const JSON_TEXT_MARK = "x-pmcp-json-text";

/** Which values a profile's provider has no form for. */
export type Shapeless = "record" | "untyped" | "open-object" | "object-without-properties";

/** What restoring must undo: the JSON-text nodes of the normalized schema, and a root that was wrapped. */
export interface Encoding {
  /** The nodes of the normalized schema (by identity) whose values the model sends as JSON text. */
  jsonText: ReadonlySet<Schema>;
  /** The property the original root was wrapped in, when it is not an object. */
  wrapped?: string;
}

/** The property a root that is not an object is wrapped in: MCP arguments and provider parameters are objects. */
export const WRAPPED_ROOT = "value";

/** Whether `keyword` is the mark, which a pass dropping unknown keywords must keep. */
export const isMark = (keyword: string): boolean => keyword === JSON_TEXT_MARK;

/** The input without any JSON-text mark, so that only this pass ever sets one. */
export function withoutMarks(schema: Schema): Schema {
  return mapSchemas(schema, (node) => {
    if (!(JSON_TEXT_MARK in node)) return node;
    const { [JSON_TEXT_MARK]: _mark, ...rest } = node;
    return rest;
  });
}

/**
 * Whether an object schema is a record: it names no properties but constrains the values or names
 * of the ones it has (`additionalProperties` as a schema, `patternProperties`, `propertyNames`).
 */
export function isRecord(node: Schema): boolean {
  const names = isObject(node.properties) ? Object.keys(node.properties).length : 0;
  const values = node.additionalProperties;
  return (
    (typeIncludes(node, "object") || (node.type === undefined && isObject(node.properties))) &&
    names === 0 &&
    ((isObject(values) && Object.keys(values).length > 0) || "patternProperties" in node || "propertyNames" in node)
  );
}

/** Whether a node says nothing about its value's type: no type, no union, no values, no reference. */
function untyped(node: Schema): boolean {
  return ["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const", "properties", "required"].every((key) => !(key in node));
}

function withoutProperties(node: Schema): boolean {
  return !isObject(node.properties) || Object.keys(node.properties).length === 0;
}

const RULES: Record<Shapeless, (node: Schema) => boolean> = {
  // Before the passes that drop what makes it one (patternProperties, propertyNames) and close it.
  record: isRecord,
  untyped,
  // Strict modes close every object: one with no properties would then admit only `{}`.
  "open-object": (node) => typeIncludes(node, "object") && withoutProperties(node) && node.additionalProperties !== false,
  // Gemini rejects an empty `properties`, OpenAI a missing one: no form has no properties.
  "object-without-properties": (node) => typeIncludes(node, "object") && withoutProperties(node),
};

/** Whether `node` admits null beside its value: a nullable flag, "null" in a type array, or a null member. */
function nullable(node: Schema): boolean {
  return (
    node.nullable === true ||
    (Array.isArray(node.type) && node.type.includes("null")) ||
    (Array.isArray(node.anyOf) && node.anyOf.some(isNullTyped))
  );
}

/** Beyond this, a JSON-text node's description does not quote the schema its value must match. */
const QUOTED_SCHEMA_LIMIT = 400;

/** A node the model fills with the JSON text of its value; null stays allowed where it was. */
function jsonTextNode(node: Schema, style: "nullable" | "type-array"): Schema {
  // What the value must be, for the model to write: the node's own constraints, when short.
  const { description: _description, title: _title, ...constraints } = node;
  const quoted = JSON.stringify(constraints);
  // A union made JSON text whole holds members encoded already: quoting them would ask for JSON text twice.
  const quotable = Object.keys(constraints).length > 0 && quoted.length <= QUOTED_SCHEMA_LIMIT && !quoted.includes(JSON_TEXT_MARK);
  const shape = quotable ? `Schema: ${quoted}` : "";
  const description = appendText(
    shape === "" ? (node.description ?? node.title) : appendText(node.description ?? node.title, shape),
    JSON_TEXT_NOTE,
  );
  const type = !nullable(node) ? "string" : style === "type-array" ? ["string", "null"] : "string";
  return { type, ...(nullable(node) && style === "nullable" ? { nullable: true } : {}), description, [JSON_TEXT_MARK]: true };
}

/**
 * Subschemas every profile with JSON text removes (Gemini drops them, strict modes close objects
 * and drop conditionals): encoding one would leave a note about a node the model never sees. A
 * property of that name is not one of them: the segment before it is `properties` (or another name map).
 */
const REMOVED_LATER =
  /(?<!\/(?:properties|patternProperties|\$defs|definitions|dependentSchemas|dependencies))\/(?:additionalProperties|propertyNames|unevaluatedProperties|unevaluatedItems|additionalItems|contains|not|if|then|else|(?:patternProperties|dependentSchemas|dependencies)\/[^/]+)$/;

const marked = (node: unknown): boolean => isObject(node) && node[JSON_TEXT_MARK] === true;

/**
 * Every node below the root that matches one of `shapeless` becomes JSON text. A union holding
 * such a member and another that admits strings becomes JSON text whole: the model's string
 * could otherwise be read as either.
 */
export function jsonTextValues(
  schema: Schema,
  shapeless: readonly Shapeless[],
  style: "nullable" | "type-array",
  context: PassContext,
): Schema {
  return mapSchemas(schema, (node, pointer) => {
    if (pointer === "" || REMOVED_LATER.test(pointer)) return node;
    // The null member of a union takes no value of its own.
    const members = Array.isArray(node.anyOf) ? node.anyOf.filter((member) => !isNullTyped(member)) : [];
    const encoded = members.filter(marked).length;
    const strings = members.filter((member) => marked(member) || (isObject(member) && typeIncludes(member, "string"))).length;
    const whole = encoded > 0 && (encoded === members.length || strings > 1);
    if (!whole && (Array.isArray(node.anyOf) || marked(node) || !shapeless.some((rule) => RULES[rule](node)))) return node;
    context.note(pointer, "no provider form keeps this value's shape: the model sends it as JSON text", "json-text");
    return jsonTextNode(node, style);
  });
}

/** The normalized schema without marks, and the nodes that carried one. */
export function collectEncoding(schema: Schema, wrapped: string | undefined): { schema: Schema; encoding: Encoding } {
  const jsonText = new Set<Schema>();
  const out = mapSchemas(schema, (node) => {
    if (!(JSON_TEXT_MARK in node)) return node;
    const { [JSON_TEXT_MARK]: _mark, ...rest } = node;
    jsonText.add(rest);
    return rest;
  });
  return { schema: out, encoding: { jsonText, ...(wrapped === undefined ? {} : { wrapped }) } };
}
