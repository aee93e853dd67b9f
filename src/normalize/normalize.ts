import {
  arrayItems,
  constToEnum,
  draft07Tuples,
  dropKeywords,
  emptyPropertiesRemoved,
  enumsToStrings,
  inlineRefs,
  mergeAllOf,
  nullUnions,
  objectProperties,
  objectRoot,
  objectTypes,
  oneOfToAnyOf,
  strictObjects,
  tuplesToArrays,
  type PassContext,
  type Schema,
} from "./passes.js";

/**
 * Provider profiles: which passes run, in order, and with which options. The table on
 * the facts page (`shared/reference/mcp-and-provider-facts.md`) is the specification.
 */
import { PROFILES, type Profile } from "./profile-names.js";

export { PROFILES, type Profile };

/** A change of meaning made (or a problem left) while normalizing, at a JSON pointer. */
export interface NormalizeNote {
  pointer: string;
  message: string;
}

const OPENAI_STRICT_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const ANTHROPIC_STRICT_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri"]);
const GEMINI_FORMATS = new Set(["enum", "date-time"]);

/**
 * The fields of the Gemini API's `Schema` (v1beta, Google's generated client reference). It is a
 * protobuf message: any other key is rejected ("Unknown name … Cannot find field").
 */
export const GEMINI_FIELDS: ReadonlySet<string> = new Set([
  "anyOf", "default", "description", "enum", "example", "format", "items", "maximum", "maxItems", "maxLength", "maxProperties", "minimum",
  "minItems", "minLength", "minProperties", "nullable", "pattern", "properties", "propertyOrdering", "required", "title", "type",
]);

/**
 * Keywords OpenAI's strict mode cannot represent, from openai-node's
 * `JSON_SCHEMA_UNSUPPORTED_SCHEMA_KEYWORDS` and the Structured Outputs guide. allOf and
 * prefixItems are on that list too, but are rewritten (merged, made arrays) rather than dropped.
 */
export const OPENAI_STRICT_UNSUPPORTED: ReadonlySet<string> = new Set([
  "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies", "patternProperties", "propertyNames", "contains",
  "contentSchema", "unevaluatedItems", "unevaluatedProperties", "uniqueItems",
]);

/** Anthropic strict's unsupported constraints; `minItems` of 0 or 1 is allowed (structured-outputs docs). */
const ANTHROPIC_STRICT_UNSUPPORTED = new Set(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems"]);
export const anthropicStrictRejects = (keyword: string, value: unknown): boolean =>
  ANTHROPIC_STRICT_UNSUPPORTED.has(keyword) && !(keyword === "minItems" && (value === 0 || value === 1));

type Step = (schema: Schema, context: PassContext) => Schema;

const inline = (cycles: "keep" | "cut"): Step => (schema, context) => inlineRefs(schema, { cycles, depth: 3 }, context);
const drop = (unsupported: (keyword: string, value: unknown) => boolean, formats?: ReadonlySet<string>): Step => (schema, context) => dropKeywords(schema, unsupported, formats, context);

/** Gemini's OpenAPI subset, up to the question of empty objects (where gemini and portable differ). */
const GEMINI_COMMON: Step[] = [
  inline("cut"),
  mergeAllOf,
  oneOfToAnyOf,
  (schema) => constToEnum(schema),
  enumsToStrings,
  tuplesToArrays,
  (schema) => arrayItems(schema),
  (schema) => nullUnions(schema, "nullable"),
  (schema) => objectTypes(schema),
  // An allow-list, not a deny-list: every key outside the Schema message is rejected.
  drop((keyword) => !GEMINI_FIELDS.has(keyword), GEMINI_FORMATS),
];

const STEPS: Record<Profile, Step[]> = {
  openai: [inline("keep"), (schema) => arrayItems(schema), (schema) => objectProperties(schema), objectRoot],
  "openai-strict": [
    inline("keep"),
    // Before the other passes, so that the description quotes the dropped subschemas as written.
    drop((keyword) => OPENAI_STRICT_UNSUPPORTED.has(keyword)),
    mergeAllOf,
    oneOfToAnyOf,
    tuplesToArrays,
    (schema) => arrayItems(schema),
    (schema) => objectProperties(schema),
    (schema) => nullUnions(schema, "type-array"),
    strictObjects,
    drop((keyword) => ["$schema", "$id", "examples", "default"].includes(keyword), OPENAI_STRICT_FORMATS),
    objectRoot,
  ],
  gemini: [...GEMINI_COMMON, emptyPropertiesRemoved, (schema, context) => objectRoot(schema, context, "leave")],
  "gemini-json": [inline("keep"), (schema) => arrayItems(schema), objectRoot],
  // Only the draft-07 tuple form is reported rejected ("must match JSON Schema draft 2020-12").
  anthropic: [inline("keep"), (schema) => draft07Tuples(schema), objectRoot],
  "anthropic-strict": [
    inline("cut"),
    mergeAllOf,
    oneOfToAnyOf,
    tuplesToArrays,
    (schema) => nullUnions(schema, "type-array"),
    strictObjects,
    drop(anthropicStrictRejects, ANTHROPIC_STRICT_FORMATS),
    objectRoot,
  ],
  // The intersection: Gemini's OpenAPI subset is the narrowest, and OpenAI wants `properties` on
  // every object. An object with no properties has no portable form (Gemini rejects an empty
  // `properties`, OpenAI a missing one); lint reports it as not fixable.
  portable: [...GEMINI_COMMON, (schema) => objectProperties(schema), objectRoot],
};

/** Rewrites a tool schema so that `profile`'s provider accepts it and reads it the same way. */
export function normalizeSchema(schema: unknown, options: { profile: Profile }): Schema {
  return normalizeSchemaWithNotes(schema, options).schema;
}

/** The same, with a note for every change of meaning and every problem that could not be fixed. */
export function normalizeSchemaWithNotes(schema: unknown, options: { profile: Profile }): { schema: Schema; notes: NormalizeNote[] } {
  const notes: NormalizeNote[] = [];
  const context: PassContext = { note: (pointer, message) => notes.push({ pointer: pointer || "/", message }) };
  const start: Schema = typeof schema === "object" && schema !== null && !Array.isArray(schema) ? (schema as Schema) : {};
  const result = STEPS[options.profile].reduce((current, step) => step(current, context), start);
  return { schema: result, notes };
}
