import { inlineRefs } from "../json-schema/inline-refs.js";
import { anthropicStrictRejects, GEMINI_FIELDS, OPENAI_STRICT_UNSUPPORTED, PROVIDER_FACTS, type Profile } from "../providers/facts.js";
import {
  arrayItems,
  constToEnum,
  draft07Tuples,
  dropKeywords,
  dynamicRefsAsRefs,
  emptyPropertiesRemoved,
  enumsToStrings,
  mergeAllOf,
  type NoteKind,
  nullUnions,
  objectProperties,
  objectRoot,
  objectTypes,
  oneOfToAnyOf,
  type PassContext,
  rootUnion,
  type Schema,
  strictObjects,
  tuplesToArrays,
  typeArraysToAnyOf,
} from "./passes.js";

// The package entry and the commands import the profile list from here.
export { PROFILES, type Profile } from "../providers/facts.js";

/** A change of meaning made (or a problem left) while normalizing, at a JSON pointer. */
export interface NormalizeNote {
  pointer: string;
  message: string;
  kind: NoteKind;
}

type Step = (schema: Schema, context: PassContext) => Schema;

const inline =
  (cycles: "keep" | "cut"): Step =>
  (schema, context) =>
    inlineRefs(schema, { cycles, depth: 3 }, context);
const drop =
  (unsupported: (keyword: string, value: unknown) => boolean, formats?: ReadonlySet<string>): Step =>
  (schema, context) =>
    dropKeywords(schema, unsupported, formats, context);
/** The keywords `profile`'s facts list as dropped, and the formats its provider does not know. */
const dropListed = (profile: Profile): Step => {
  const { dropped = new Set<string>(), formats } = PROVIDER_FACTS[profile];
  return drop((keyword) => dropped.has(keyword), formats);
};

/** Gemini's OpenAPI subset, up to the question of empty objects (where gemini and portable differ). */
const geminiCommon = (profile: "gemini" | "portable"): Step[] => [
  inline("cut"),
  mergeAllOf,
  oneOfToAnyOf,
  (schema) => constToEnum(schema),
  enumsToStrings,
  tuplesToArrays,
  (schema) => arrayItems(schema),
  // An allow-list, not a deny-list: every key outside the Schema message is rejected. After the
  // rewrites of keywords outside it, and before rootUnion: a root union's member that only a dropped
  // keyword (`if`, `not`) keeps from merging must merge in the first run, not in a second.
  drop((keyword) => !GEMINI_FIELDS.has(keyword), PROVIDER_FACTS[profile].formats),
  // Before nullUnions, which rewrites the unions with null that merging members makes.
  rootUnion,
  (schema) => nullUnions(schema, "nullable"),
  typeArraysToAnyOf,
  (schema) => objectTypes(schema),
];

/**
 * Provider profiles: which passes run, in order, and with which options. The table on
 * the facts page (`shared/reference/mcp-and-provider-facts.md`) is the specification.
 */
const STEPS: Record<Profile, Step[]> = {
  openai: [inline("keep"), rootUnion, (schema) => arrayItems(schema), (schema) => objectProperties(schema), objectRoot],
  "openai-strict": [
    inline("keep"),
    // Before the other passes, so that the description quotes the dropped subschemas as written.
    drop((keyword) => OPENAI_STRICT_UNSUPPORTED.has(keyword)),
    // Again: a dropped keyword (`not`) may have held the only reference to a kept definition.
    inline("keep"),
    mergeAllOf,
    oneOfToAnyOf,
    tuplesToArrays,
    (schema) => arrayItems(schema),
    (schema) => objectProperties(schema),
    (schema) => nullUnions(schema, "type-array"),
    rootUnion,
    // Before strictObjects, which closes the object it makes.
    objectRoot,
    strictObjects,
    dropListed("openai-strict"),
  ],
  gemini: [...geminiCommon("gemini"), emptyPropertiesRemoved, (schema, context) => objectRoot(schema, context, "leave")],
  "gemini-json": [inline("keep"), rootUnion, (schema) => arrayItems(schema), objectRoot],
  // Only the draft-07 tuple form is reported rejected ("must match JSON Schema draft 2020-12").
  anthropic: [inline("keep"), rootUnion, (schema) => draft07Tuples(schema), objectRoot],
  "anthropic-strict": [
    inline("cut"),
    mergeAllOf,
    oneOfToAnyOf,
    tuplesToArrays,
    (schema) => nullUnions(schema, "type-array"),
    rootUnion,
    // Before strictObjects, which closes the object it makes.
    objectRoot,
    strictObjects,
    drop(anthropicStrictRejects, PROVIDER_FACTS["anthropic-strict"].formats),
  ],
  // The intersection: Gemini's OpenAPI subset is the narrowest, and OpenAI wants `properties` on
  // every object. An object with no properties has no portable form (Gemini rejects an empty
  // `properties`, OpenAI a missing one); lint reports it as not fixable.
  portable: [...geminiCommon("portable"), (schema) => objectProperties(schema), objectRoot],
};

/** Rewrites a tool schema so that `profile`'s provider accepts it and reads it the same way. */
export function normalizeSchema(schema: unknown, options: { profile: Profile }): Schema {
  return normalizeSchemaWithNotes(schema, options).schema;
}

/** The same, with a note for every change of meaning and every problem that could not be fixed. */
export function normalizeSchemaWithNotes(schema: unknown, options: { profile: Profile }): { schema: Schema; notes: NormalizeNote[] } {
  const notes: NormalizeNote[] = [];
  const context: PassContext = { note: (pointer, message, kind) => notes.push({ pointer: pointer || "/", message, kind }) };
  const start: Schema = typeof schema === "object" && schema !== null && !Array.isArray(schema) ? (schema as Schema) : {};
  const result = STEPS[options.profile].reduce((current, step) => step(current, context), dynamicRefsAsRefs(start));
  return { schema: result, notes };
}
