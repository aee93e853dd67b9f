import { appendText } from "../json-schema/annotations.js";
import type { Schema } from "../json-schema/keywords.js";
import { isObject } from "../json-schema/pointer.js";
import { isNullTyped, typeIncludes } from "../json-schema/predicates.js";
import { mapSchemas } from "../json-schema/traverse.js";
import { holdsJsonText, isEnumStrings, isJsonText, markJsonText } from "./encoding.js";
import type { PassContext } from "./passes.js";

/**
 * The encoding of values no provider form keeps the shape of: JSON text. A free-form value, an
 * open record under a strict mode, an object with no declared properties become
 * `{"type": "string", "description": "… (JSON text)"}`; the model writes the value as JSON, and
 * `restoreArguments` parses it back where (and only where) this pass put it (`encoding.ts`).
 */

/** What a JSON-text node's description ends with, so the model knows to write JSON. */
export const JSON_TEXT_NOTE = "(JSON text)";

/** Which values a profile's provider has no form for. */
export type Shapeless = "record" | "untyped" | "open-object" | "object-without-properties" | "object-enum";

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
  // Anthropic strict takes enum values that are strings, numbers, booleans or null only.
  "object-enum": (node) =>
    [...(Array.isArray(node.enum) ? node.enum : []), ...("const" in node ? [node.const] : [])].some(
      (value) => typeof value === "object" && value !== null,
    ),
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
export function asJsonText(node: Schema, style: "nullable" | "type-array"): Schema {
  // What the value must be, for the model to write: the node's own constraints, when short.
  const { description: _description, title: _title, ...constraints } = node;
  const quoted = JSON.stringify(constraints);
  // A union made JSON text whole holds members encoded already: quoting them would ask for JSON text twice.
  const quotable = Object.keys(constraints).length > 0 && quoted.length <= QUOTED_SCHEMA_LIMIT && !holdsJsonText(quoted);
  const shape = quotable ? `Schema: ${quoted}` : "";
  const description = appendText(
    shape === "" ? (node.description ?? node.title) : appendText(node.description ?? node.title, shape),
    JSON_TEXT_NOTE,
  );
  const type = !nullable(node) ? "string" : style === "type-array" ? ["string", "null"] : "string";
  return markJsonText({ type, ...(nullable(node) && style === "nullable" ? { nullable: true } : {}), description });
}

/**
 * Subschemas every profile with JSON text removes (Gemini drops them, strict modes close objects
 * and drop conditionals): encoding one would leave a note about a node the model never sees. A
 * property of that name is not one of them: the segment before it is `properties` (or another name map).
 */
const REMOVED_LATER =
  /(?<!\/(?:properties|patternProperties|\$defs|definitions|dependentSchemas|dependencies))\/(?:additionalProperties|propertyNames|unevaluatedProperties|unevaluatedItems|additionalItems|contains|not|if|then|else|(?:patternProperties|dependentSchemas|dependencies)\/[^/]+)$/;

const marked = isJsonText;

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
    // A member whose enum values became strings is read as a string too: beside another, "2" could mean either.
    const rewritten = encoded + members.filter(isEnumStrings).length;
    const whole = rewritten > 0 && (encoded === members.length || strings > 1);
    if (!whole && (Array.isArray(node.anyOf) || marked(node) || !shapeless.some((rule) => RULES[rule](node)))) return node;
    context.note(pointer, "no provider form keeps this value's shape: the model sends it as JSON text", "json-text");
    return asJsonText(node, style);
  });
}
