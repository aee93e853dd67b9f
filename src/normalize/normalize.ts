import {
  arrayItems,
  constToEnum,
  dropKeywords,
  enumsToStrings,
  inlineRefs,
  mergeAllOf,
  nullUnions,
  objectProperties,
  objectRoot,
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
export const PROFILES = ["openai", "openai-strict", "gemini", "gemini-json", "anthropic", "anthropic-strict", "portable"] as const;
export type Profile = (typeof PROFILES)[number];

/** A change of meaning made (or a problem left) while normalizing, at a JSON pointer. */
export interface NormalizeNote {
  pointer: string;
  message: string;
}

const OPENAI_STRICT_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const ANTHROPIC_STRICT_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid", "uri"]);
const GEMINI_FORMATS = new Set(["enum", "date-time"]);

type Step = (schema: Schema, context: PassContext) => Schema;

const inline = (cycles: "keep" | "cut"): Step => (schema, context) => inlineRefs(schema, { cycles, depth: 3 }, context);
const drop = (keywords: string[], formats?: ReadonlySet<string>): Step => (schema) => dropKeywords(schema, new Set(keywords), formats);

const GEMINI: Step[] = [
  inline("cut"),
  mergeAllOf,
  oneOfToAnyOf,
  (schema) => constToEnum(schema),
  enumsToStrings,
  tuplesToArrays,
  (schema) => arrayItems(schema),
  (schema) => nullUnions(schema, "nullable"),
  drop(["$schema", "$id", "$comment", "additionalProperties", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "examples", "title"], GEMINI_FORMATS),
  objectRoot,
];

const STEPS: Record<Profile, Step[]> = {
  openai: [inline("keep"), (schema) => arrayItems(schema), (schema) => objectProperties(schema), objectRoot],
  "openai-strict": [
    inline("keep"),
    mergeAllOf,
    oneOfToAnyOf,
    tuplesToArrays,
    (schema) => arrayItems(schema),
    (schema) => objectProperties(schema),
    (schema) => nullUnions(schema, "type-array"),
    strictObjects,
    drop(["$schema", "$id", "examples", "default"], OPENAI_STRICT_FORMATS),
    objectRoot,
  ],
  gemini: GEMINI,
  "gemini-json": [inline("keep"), (schema) => arrayItems(schema), objectRoot],
  anthropic: [inline("keep"), tuplesToArrays, objectRoot],
  "anthropic-strict": [
    inline("cut"),
    mergeAllOf,
    oneOfToAnyOf,
    tuplesToArrays,
    (schema) => nullUnions(schema, "type-array"),
    strictObjects,
    drop(["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems"], ANTHROPIC_STRICT_FORMATS),
    objectRoot,
  ],
  // The intersection: Gemini's OpenAPI subset is the narrowest, and OpenAI wants `properties` on every object.
  portable: [...GEMINI.slice(0, -1), (schema) => objectProperties(schema), objectRoot],
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
