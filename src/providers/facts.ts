/**
 * What each LLM provider accepts in a tool schema, from the table on the facts page
 * (`shared/reference/mcp-and-provider-facts.md`). Lint reports against these facts and
 * normalize rewrites by them; neither keeps its own copy. No imports: `--help` may load it.
 */

export const PROFILES = ["openai", "openai-strict", "gemini", "gemini-json", "anthropic", "anthropic-strict", "portable"] as const;
export type Profile = (typeof PROFILES)[number];

/** Formats OpenAI's strict mode accepts (Structured Outputs guide). */
export const OPENAI_STRICT_FORMATS: ReadonlySet<string> = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "ipv4",
  "ipv6",
  "uuid",
]);
/** Anthropic strict accepts OpenAI's strict formats and `uri` (structured-outputs docs). */
export const ANTHROPIC_STRICT_FORMATS: ReadonlySet<string> = new Set([...OPENAI_STRICT_FORMATS, "uri"]);
/** Gemini's Schema documents only these for strings. */
export const GEMINI_FORMATS: ReadonlySet<string> = new Set(["enum", "date-time"]);

/**
 * The formats each profile is known to accept, for the profiles that check formats. Outside
 * strict mode, OpenAI models are reported to reject formats beyond the strict set.
 */
export const KNOWN_FORMATS: Partial<Record<Profile, ReadonlySet<string>>> = {
  openai: OPENAI_STRICT_FORMATS,
  "openai-strict": OPENAI_STRICT_FORMATS,
  "anthropic-strict": ANTHROPIC_STRICT_FORMATS,
  gemini: GEMINI_FORMATS,
  portable: GEMINI_FORMATS,
};

/**
 * The fields of the Gemini API's `Schema` (v1beta, Google's generated client reference). It is a
 * protobuf message: any other key is rejected ("Unknown name … Cannot find field").
 */
export const GEMINI_FIELDS: ReadonlySet<string> = new Set([
  "anyOf",
  "default",
  "description",
  "enum",
  "example",
  "format",
  "items",
  "maximum",
  "maxItems",
  "maxLength",
  "maxProperties",
  "minimum",
  "minItems",
  "minLength",
  "minProperties",
  "nullable",
  "pattern",
  "properties",
  "propertyOrdering",
  "required",
  "title",
  "type",
]);

/** Numeric constraints outside Gemini's Schema. */
export const GEMINI_UNSUPPORTED_CONSTRAINTS: ReadonlySet<string> = new Set(["exclusiveMinimum", "exclusiveMaximum", "multipleOf"]);

/**
 * Keywords OpenAI's strict mode cannot represent, from openai-node's
 * `JSON_SCHEMA_UNSUPPORTED_SCHEMA_KEYWORDS` and the Structured Outputs guide. allOf and
 * prefixItems are on that list too, but are rewritten (merged, made arrays) rather than dropped.
 */
export const OPENAI_STRICT_UNSUPPORTED: ReadonlySet<string> = new Set([
  "not",
  "if",
  "then",
  "else",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "patternProperties",
  "propertyNames",
  "contains",
  "contentSchema",
  "unevaluatedItems",
  "unevaluatedProperties",
  "uniqueItems",
]);

/** Size limits of OpenAI's strict mode (Structured Outputs guide), which no rewrite can fix. */
export const OPENAI_STRICT_LIMITS = {
  properties: 5000,
  depth: 10,
  /** "up to 1000 enum values across all enum properties", not per enum. */
  enumValues: 1000,
  /** Property names, definition names, enum and const values together. */
  characters: 120_000,
  /** One string enum of more than `values` values may have at most `characters` characters. */
  longEnum: { values: 250, characters: 15_000 },
} as const;

/** Anthropic strict's unsupported constraints; `minItems` of 0 or 1 is allowed (structured-outputs docs). */
const ANTHROPIC_STRICT_UNSUPPORTED = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
]);
export const anthropicStrictRejects = (keyword: string, value: unknown): boolean =>
  ANTHROPIC_STRICT_UNSUPPORTED.has(keyword) && !(keyword === "minItems" && (value === 0 || value === 1));

/** Regex features Anthropic's strict mode does not support: backreferences, lookaround, \b and \B (an escaped backslash does not count). */
export const ANTHROPIC_STRICT_UNSUPPORTED_REGEX = /(?<!\\)(?:\\\\)*(?:\\[1-9bB]|\\k<|\(\?<?[=!])/;

/** Anthropic strict's per-request limits: optional parameters, and parameters with a union type ("anyOf or type arrays"). */
export const ANTHROPIC_STRICT_LIMITS = { optional: 24, unions: 16 } as const;
