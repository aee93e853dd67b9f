import { inlineRefs } from "../json-schema/inline-refs.js";
import { anthropicStrictRejects, GEMINI_FIELDS, OPENAI_STRICT_UNSUPPORTED, PROVIDER_FACTS, type Profile } from "../providers/facts.js";
import { collectEncoding, type Encoding, isMark } from "./encoding.js";
import { jsonTextValues, type Shapeless } from "./json-text.js";
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
  nameConstraints,
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
  unionTypes,
  valueTypes,
  wrapRecordRoot,
  wrapRoot,
} from "./passes.js";
import { perProfile } from "./per-profile.js";

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

const jsonText =
  (shapeless: readonly Shapeless[], style: "nullable" | "type-array"): Step =>
  (schema, context) =>
    jsonTextValues(schema, shapeless, style, context);

/** Gemini's OpenAPI subset, up to the question of empty objects (where gemini and portable differ). */
const geminiCommon = (profile: "gemini" | "portable"): Step[] => [
  inline("cut"),
  wrapRecordRoot,
  jsonText(["record"], "nullable"),
  mergeAllOf,
  oneOfToAnyOf,
  (schema) => constToEnum(schema),
  enumsToStrings,
  tuplesToArrays,
  (schema) => arrayItems(schema),
  // An allow-list, not a deny-list: every key outside the Schema message is rejected. After the
  // rewrites of keywords outside it, and before rootUnion: a root union's member that only a dropped
  // keyword (`if`, `not`) keeps from merging must merge in the first run, not in a second.
  drop((keyword) => !GEMINI_FIELDS.has(keyword) && !isMark(keyword), PROVIDER_FACTS[profile].formats),
  // Before nullUnions, which rewrites the unions with null that merging members makes.
  rootUnion,
  wrapRoot,
  nameConstraints,
  (schema) => nullUnions(schema, "nullable"),
  typeArraysToAnyOf,
  (schema) => objectTypes(schema),
  (schema) => unionTypes(schema),
  (schema) => valueTypes(schema, "nullable"),
  // Gemini wants a type on every node and properties on every object: values without either are JSON text.
  jsonText(["untyped", "object-without-properties"], "nullable"),
];

/**
 * Provider profiles: which passes run, in order, and with which options. The table on
 * the facts page (`shared/reference/mcp-and-provider-facts.md`) is the specification.
 */
const STEPS: Record<Profile, Step[]> = {
  openai: [
    inline("keep"),
    rootUnion,
    wrapRoot,
    (schema) => arrayItems(schema),
    (schema) => objectProperties(schema),
    (schema) => objectRoot(schema),
  ],
  "openai-strict": [
    inline("keep"),
    wrapRecordRoot,
    jsonText(["record"], "type-array"),
    // Before the other passes, so that the description quotes the dropped subschemas as written.
    drop((keyword) => OPENAI_STRICT_UNSUPPORTED.has(keyword)),
    // Again: a dropped keyword (`not`) may have held the only reference to a kept definition.
    inline("keep"),
    mergeAllOf,
    oneOfToAnyOf,
    tuplesToArrays,
    (schema) => unionTypes(schema),
    (schema) => arrayItems(schema),
    (schema) => objectProperties(schema),
    (schema) => nullUnions(schema, "type-array"),
    rootUnion,
    wrapRoot,
    nameConstraints,
    (schema) => valueTypes(schema, "type-array"),
    // Every node needs a type, and every object is closed: a free-form value or an open object with no properties is JSON text.
    (schema) => objectTypes(schema),
    jsonText(["untyped", "open-object"], "type-array"),
    // Before strictObjects, which closes the object it makes.
    (schema) => objectRoot(schema),
    strictObjects,
    dropListed("openai-strict"),
  ],
  gemini: [...geminiCommon("gemini"), emptyPropertiesRemoved, (schema) => objectRoot(schema, "leave")],
  "gemini-json": [inline("keep"), rootUnion, wrapRoot, (schema) => arrayItems(schema), (schema) => objectRoot(schema)],
  // Only the draft-07 tuple form is reported rejected ("must match JSON Schema draft 2020-12").
  anthropic: [inline("keep"), rootUnion, wrapRoot, (schema) => draft07Tuples(schema), (schema) => objectRoot(schema)],
  "anthropic-strict": [
    inline("cut"),
    wrapRecordRoot,
    jsonText(["record"], "type-array"),
    // Anthropic's strict grammar has no conditionals either; the description keeps what they said.
    drop((keyword) => OPENAI_STRICT_UNSUPPORTED.has(keyword)),
    mergeAllOf,
    oneOfToAnyOf,
    tuplesToArrays,
    (schema) => unionTypes(schema),
    (schema) => nullUnions(schema, "type-array"),
    rootUnion,
    wrapRoot,
    nameConstraints,
    // Every object is closed: an open object with no properties would admit only `{}`.
    (schema) => objectTypes(schema),
    jsonText(["open-object", "object-enum"], "type-array"),
    // Before strictObjects, which closes the object it makes.
    (schema) => objectRoot(schema),
    (schema, context) => strictObjects(schema, context, false),
    drop(anthropicStrictRejects, PROVIDER_FACTS["anthropic-strict"].formats),
  ],
  // The intersection: Gemini's OpenAPI subset is the narrowest, and OpenAI wants `properties` on
  // every object; an object with no properties below the root is JSON text (geminiCommon). A root
  // with none is a tool without parameters, declared without them where the provider asks.
  portable: [...geminiCommon("portable"), (schema) => objectProperties(schema), (schema) => objectRoot(schema)],
};

/**
 * `normalizeSchemaWithNotes`, remembered per schema object and profile: declaring a tool to a
 * model and restoring each of its calls read the same normalization. The result must not be changed.
 */
/**
 * The passes recurse, and overflow the stack near a thousand levels; a schema deeper than this is
 * left as exported (a tool of it not offered, its arguments not restored), with the pointer where it
 * goes too deep. No provider accepts nesting near it.
 */
export const MAX_NORMALIZE_DEPTH = 256;

export const normalizedFor = perProfile((schema: Schema, profile) => normalizeSchemaWithNotes(schema, { profile }));

/** Rewrites a tool schema so that `profile`'s provider accepts it and reads it the same way. */
export function normalizeSchema(schema: unknown, options: { profile: Profile }): Schema {
  return normalizeSchemaWithNotes(schema, options).schema;
}

/** The same, with a note for every change of meaning and every problem that could not be fixed, and what restoring must undo. */
export function normalizeSchemaWithNotes(
  schema: unknown,
  options: { profile: Profile },
): { schema: Schema; notes: NormalizeNote[]; encoding: Encoding } {
  const notes: NormalizeNote[] = [];
  const context: PassContext = { note: (pointer, message, kind) => notes.push({ pointer: pointer || "/", message, kind }) };
  const start: Schema = typeof schema === "object" && schema !== null && !Array.isArray(schema) ? (schema as Schema) : {};
  const result = STEPS[options.profile].reduce((current, step) => step(current, context), dynamicRefsAsRefs(start));
  return { ...collectEncoding(result, context.wrapped), notes };
}
