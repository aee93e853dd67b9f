/**
 * What each LLM provider accepts in a tool schema, from the table on the facts page
 * (`shared/reference/mcp-and-provider-facts.md`), gathered per profile in `PROVIDER_FACTS`. Lint
 * reports against these facts and normalize rewrites by them; neither keeps its own copy. Its
 * only import is JSON Schema's keyword lists, which load nothing else: `--help` may load it.
 */

import { BOUND_KEYWORDS, CONDITIONAL_KEYWORDS } from "../json-schema/keywords.js";

export const PROFILES = ["openai", "openai-strict", "gemini", "gemini-json", "anthropic", "anthropic-strict", "portable"] as const;
export type Profile = (typeof PROFILES)[number];

/** How lint reports a finding: the provider rejects the schema, or misreads it (or only some of its models reject it). */
export type Severity = "error" | "warning";

/** Lint's rules, each checking one thing some provider rejects or misreads. */
export type LintRule =
  | "root-not-object"
  | "root-combinator"
  | "untyped-node"
  | "object-without-properties"
  | "empty-object"
  | "properties-on-non-object"
  | "unknown-keyword"
  | "anyof-with-siblings"
  | "ref"
  | "remote-ref"
  | "null-union"
  | "type-array"
  | "one-of"
  | "all-of"
  | "tuple"
  | "array-without-items"
  | "strict-additional-properties"
  | "strict-all-required"
  | "additional-properties"
  | "non-string-enum"
  | "const"
  | "unsupported-format"
  | "unsupported-constraint"
  | "strict-unsupported-keyword"
  | "complex-enum"
  | "regex-features"
  | "schema-metadata"
  | "strict-limits";

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
export const OPENAI_STRICT_UNSUPPORTED: ReadonlySet<string> = new Set(CONDITIONAL_KEYWORDS);

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
const ANTHROPIC_STRICT_UNSUPPORTED: ReadonlySet<string> = new Set(BOUND_KEYWORDS);
export const anthropicStrictRejects = (keyword: string, value: unknown): boolean =>
  ANTHROPIC_STRICT_UNSUPPORTED.has(keyword) && !(keyword === "minItems" && (value === 0 || value === 1));

/** Regex features Anthropic's strict mode does not support: backreferences, lookaround, \b and \B (an escaped backslash does not count). */
export const ANTHROPIC_STRICT_UNSUPPORTED_REGEX = /(?<!\\)(?:\\\\)*(?:\\[1-9bB]|\\k<|\(\?<?[=!])/;

/**
 * Anthropic strict's per-request limits: strict tools, optional parameters, and parameters with a
 * union type ("anyOf or type arrays"), counted over every strict tool of a request.
 */
export const ANTHROPIC_STRICT_LIMITS = { tools: 20, optional: 24, unions: 16 } as const;

/**
 * The profile a tool falls back to when its strict profile's limits cannot hold it: the same
 * provider without strict mode, so the request is accepted and the tool is only unchecked.
 */
export const STRICT_FALLBACK: Partial<Record<Profile, Profile>> = { "openai-strict": "openai", "anthropic-strict": "anthropic" };

/** What a provider accepts as a tool's name: the characters, the first one, and the length. */
export interface ToolNameRule {
  /** Characters outside this class are replaced by `_`. */
  allowed: RegExp;
  /** A name that does not start with one of these gets a leading `_`. */
  first: RegExp;
  maxLength: number;
  /** The rule as the provider documents it, for messages. */
  documented: string;
}

/** OpenAI's function-name rule (API reference); Anthropic documents the same pattern for tool names. */
const PLAIN_NAMES: ToolNameRule = { allowed: /[A-Za-z0-9_-]/, first: /[A-Za-z0-9_-]/, maxLength: 64, documented: "^[a-zA-Z0-9_-]{1,64}$" };

const GEMINI_NAMES: ToolNameRule = {
  allowed: /[A-Za-z0-9_.:-]/,
  first: /[A-Za-z_]/,
  maxLength: 64,
  documented: "^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$",
};

/**
 * Tool-name rules per profile. Gemini (FunctionDeclaration.name, API reference): "Must start with a
 * letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes,
 * with a maximum length of 64." (Vertex AI and @google/genai's own docs say 128; 64 holds for both.)
 * Portable takes what all three accept.
 */
export const TOOL_NAME_RULES: Readonly<Record<Profile, ToolNameRule>> = {
  openai: PLAIN_NAMES,
  "openai-strict": PLAIN_NAMES,
  anthropic: PLAIN_NAMES,
  "anthropic-strict": PLAIN_NAMES,
  gemini: GEMINI_NAMES,
  "gemini-json": GEMINI_NAMES,
  portable: { allowed: /[A-Za-z0-9_-]/, first: /[A-Za-z_]/, maxLength: 64, documented: "^[a-zA-Z_][a-zA-Z0-9_-]{0,63}$" },
};

/** What one provider accepts, as lint and normalize read it. */
export interface ProviderFacts {
  /** The lint rules that apply to this provider, each with its severity; a rule not listed does not apply. */
  rules: Partial<Record<LintRule, Severity>>;
  /** The formats the provider is known to accept, where it checks them. */
  formats?: ReadonlySet<string>;
  /** Keywords normalize removes last, beyond what the rules report. */
  dropped?: ReadonlySet<string>;
}

/** The rules every provider has: a root that is an object, and no reference it would have to fetch. */
const EVERY_PROVIDER = { "root-not-object": "error", "remote-ref": "error" } as const;

/** Gemini's OpenAPI subset, which portable (the intersection of all) inherits. */
const GEMINI_SUBSET = {
  ...EVERY_PROVIDER,
  "untyped-node": "error",
  "empty-object": "error",
  "properties-on-non-object": "error",
  "unknown-keyword": "error",
  ref: "error",
  "null-union": "error",
  "type-array": "error",
  "one-of": "error",
  "all-of": "error",
  tuple: "error",
  "array-without-items": "error",
  "additional-properties": "error",
  "non-string-enum": "error",
  const: "error",
  "unsupported-format": "warning",
  "unsupported-constraint": "error",
} as const;

/**
 * One table per profile: lint takes each rule's severity from it, normalize the formats it keeps
 * and the keywords it drops last.
 */
export const PROVIDER_FACTS: Readonly<Record<Profile, ProviderFacts>> = {
  openai: {
    rules: {
      ...EVERY_PROVIDER,
      "root-combinator": "error",
      "object-without-properties": "error",
      "one-of": "warning",
      "all-of": "warning",
      "array-without-items": "error",
      "unsupported-format": "warning",
    },
    // Outside strict mode, OpenAI models are reported to reject formats beyond the strict set.
    formats: OPENAI_STRICT_FORMATS,
  },
  "openai-strict": {
    rules: {
      ...EVERY_PROVIDER,
      "root-combinator": "error",
      "untyped-node": "error",
      "object-without-properties": "error",
      "one-of": "error",
      "all-of": "error",
      tuple: "error",
      "array-without-items": "error",
      "strict-additional-properties": "error",
      "strict-all-required": "error",
      "unsupported-format": "error",
      "strict-unsupported-keyword": "error",
      "strict-limits": "error",
    },
    formats: OPENAI_STRICT_FORMATS,
    dropped: new Set(["$schema", "$id", "examples", "default"]),
  },
  gemini: {
    rules: {
      ...GEMINI_SUBSET,
      // Vertex AI only: "When using any_of, it must be the only field set."
      "anyof-with-siblings": "warning",
      "schema-metadata": "error",
    },
    formats: GEMINI_FORMATS,
  },
  "gemini-json": { rules: EVERY_PROVIDER },
  anthropic: { rules: { ...EVERY_PROVIDER, "root-combinator": "error", tuple: "error" } },
  "anthropic-strict": {
    rules: {
      ...EVERY_PROVIDER,
      "root-combinator": "error",
      "one-of": "error",
      "all-of": "error",
      tuple: "error",
      "strict-additional-properties": "error",
      "unsupported-format": "error",
      "unsupported-constraint": "error",
      "complex-enum": "error",
      "strict-unsupported-keyword": "warning",
      "regex-features": "warning",
      "strict-limits": "warning",
    },
    formats: ANTHROPIC_STRICT_FORMATS,
  },
  portable: { rules: { ...GEMINI_SUBSET, "root-combinator": "error", "schema-metadata": "warning" }, formats: GEMINI_FORMATS },
};
