import { isObject } from "../json-schema/pointer.js";
import { normalizeSchema, type Profile } from "../normalize/normalize.js";

/**
 * What each LLM provider rejects or silently misreads in a tool schema, from the table
 * on the facts page. A finding says whether `pmcp schema normalize` fixes it: decided by
 * normalizing for the same profile and linting again, not by a hand-kept list.
 */

export type Severity = "error" | "warning";

export interface LintFinding {
  profile: Profile;
  rule: string;
  severity: Severity;
  pointer: string;
  message: string;
  fixable: boolean;
}

type Schema = Record<string, unknown>;

interface Rule {
  name: string;
  /** Severity per profile; a profile not listed does not have this rule. */
  severity: Partial<Record<Profile, Severity>>;
  /** Only the root schema. */
  root?: boolean;
  check(node: Schema, profile: Profile): string | undefined;
}

const ALL_STRICT: Partial<Record<Profile, Severity>> = { "openai-strict": "error", "anthropic-strict": "error" };
const OPENAI_STRICT_FORMATS = new Set(["date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"]);
const ANTHROPIC_STRICT_FORMATS = new Set([...OPENAI_STRICT_FORMATS, "uri"]);
const GEMINI_FORMATS = new Set(["enum", "date-time"]);
const isObjectType = (node: Schema) => node.type === "object" || (Array.isArray(node.type) && node.type.includes("object"));
const isArrayType = (node: Schema) => node.type === "array" || (Array.isArray(node.type) && node.type.includes("array"));
const NULL = (member: unknown) => isObject(member) && member.type === "null";

const RULES: Rule[] = [
  {
    name: "root-not-object",
    root: true,
    severity: { openai: "error", "openai-strict": "error", gemini: "error", "gemini-json": "error", anthropic: "error", "anthropic-strict": "error", portable: "error" },
    check: (node) => (node.type === "object" ? undefined : `the root must be {"type": "object"}, got ${JSON.stringify(node.type ?? "no type")}`),
  },
  {
    name: "root-combinator",
    root: true,
    severity: { openai: "error", "openai-strict": "error", anthropic: "error", "anthropic-strict": "error", portable: "error" },
    check: (node) => {
      const key = ["anyOf", "oneOf", "allOf", "enum", "not"].find((candidate) => candidate in node);
      return key === undefined ? undefined : `the root may not use ${key}`;
    },
  },
  {
    name: "object-without-properties",
    severity: { openai: "error", "openai-strict": "error", portable: "warning" },
    check: (node) => (isObjectType(node) && !isObject(node.properties) ? "an object needs \"properties\"" : undefined),
  },
  {
    name: "ref",
    severity: { gemini: "error", portable: "error" },
    check: (node) => (typeof node.$ref === "string" && node.$ref.startsWith("#") ? `$ref ${JSON.stringify(node.$ref)} is not understood; it must be inlined` : undefined),
  },
  {
    name: "remote-ref",
    severity: { openai: "error", "openai-strict": "error", gemini: "error", "gemini-json": "error", anthropic: "error", "anthropic-strict": "error", portable: "error" },
    check: (node) => (typeof node.$ref === "string" && !node.$ref.startsWith("#") ? `$ref ${JSON.stringify(node.$ref)} points outside the schema` : undefined),
  },
  {
    name: "null-union",
    severity: { gemini: "error", portable: "error" },
    check: (node) => (["anyOf", "oneOf"].some((key) => Array.isArray(node[key]) && (node[key] as unknown[]).some(NULL)) ? "a union with null must be written as nullable: true" : undefined),
  },
  {
    name: "type-array",
    severity: { gemini: "error", portable: "error" },
    check: (node) => (Array.isArray(node.type) ? `type must be one string, got ${JSON.stringify(node.type)}` : undefined),
  },
  {
    name: "one-of",
    severity: { "openai-strict": "error", gemini: "error", "anthropic-strict": "error", openai: "warning", portable: "error" },
    check: (node) => (Array.isArray(node.oneOf) ? "oneOf is not supported here (anyOf is)" : undefined),
  },
  {
    name: "all-of",
    severity: { "openai-strict": "error", gemini: "error", "anthropic-strict": "error", openai: "warning", portable: "error" },
    check: (node) => (Array.isArray(node.allOf) ? "allOf is not supported here; merge its members" : undefined),
  },
  {
    name: "tuple",
    severity: { "openai-strict": "error", gemini: "error", anthropic: "error", "anthropic-strict": "error", portable: "error" },
    check: (node) => (Array.isArray(node.prefixItems) || Array.isArray(node.items) ? "tuples (prefixItems or items: [...]) are not supported" : undefined),
  },
  {
    name: "array-without-items",
    severity: { openai: "error", "openai-strict": "error", gemini: "error", portable: "error" },
    check: (node) => (isArrayType(node) && node.items === undefined && node.prefixItems === undefined ? "an array needs \"items\"" : undefined),
  },
  {
    name: "strict-additional-properties",
    severity: ALL_STRICT,
    check: (node) => (isObjectType(node) && node.additionalProperties !== false ? "strict mode needs additionalProperties: false on every object" : undefined),
  },
  {
    name: "strict-all-required",
    severity: { "openai-strict": "error" },
    check: (node) => {
      if (!isObjectType(node) || !isObject(node.properties)) return undefined;
      const required = new Set(Array.isArray(node.required) ? node.required : []);
      const optional = Object.keys(node.properties).filter((name) => !required.has(name));
      return optional.length > 0 ? `strict mode needs every property in "required" (optional: ${optional.join(", ")})` : undefined;
    },
  },
  {
    name: "additional-properties",
    severity: { gemini: "error", portable: "error" },
    check: (node) => ("additionalProperties" in node ? "additionalProperties is not accepted" : undefined),
  },
  {
    name: "non-string-enum",
    severity: { gemini: "error", portable: "error" },
    check: (node) => (Array.isArray(node.enum) && node.enum.some((value) => typeof value !== "string") ? "enum values must be strings" : undefined),
  },
  {
    name: "const",
    severity: { gemini: "error", portable: "error" },
    check: (node) => ("const" in node ? "const is not accepted (use a one-value enum)" : undefined),
  },
  {
    name: "unsupported-format",
    severity: { "openai-strict": "error", gemini: "warning", "anthropic-strict": "error", openai: "warning", portable: "warning" },
    check: (node, profile) => {
      if (typeof node.format !== "string") return undefined;
      const allowed = profile === "openai-strict" ? OPENAI_STRICT_FORMATS : profile === "anthropic-strict" ? ANTHROPIC_STRICT_FORMATS : profile === "openai" ? new Set([...ANTHROPIC_STRICT_FORMATS].filter((format) => format !== "uri")) : GEMINI_FORMATS;
      return allowed.has(node.format) ? undefined : `format "${node.format}" is ${profile === "openai" ? "rejected by some models" : "not supported"}`;
    },
  },
  {
    name: "unsupported-constraint",
    severity: { gemini: "error", "anthropic-strict": "error", portable: "error" },
    check: (node, profile) => {
      const keys = profile === "anthropic-strict" ? ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength", "minItems", "maxItems"] : ["exclusiveMinimum", "exclusiveMaximum", "multipleOf"];
      const found = keys.filter((key) => key in node);
      return found.length > 0 ? `${found.join(", ")} not supported` : undefined;
    },
  },
  {
    name: "schema-metadata",
    severity: { gemini: "error", portable: "warning" },
    check: (node) => (["$schema", "$id"].some((key) => key in node) ? "$schema and $id are not accepted" : undefined),
  },
];

/** Nesting depth and size limits of OpenAI's strict mode, which normalizing cannot fix. */
function strictLimits(schema: Schema): string[] {
  const problems: string[] = [];
  let properties = 0;
  let deepest = 0;
  const walk = (node: unknown, depth: number) => {
    if (!isObject(node)) return;
    deepest = Math.max(deepest, depth);
    if (isObject(node.properties)) {
      properties += Object.keys(node.properties).length;
      for (const value of Object.values(node.properties)) walk(value, depth + 1);
    }
    if (Array.isArray(node.enum) && node.enum.length > 1000) problems.push(`an enum has ${node.enum.length} values (at most 1,000)`);
    for (const key of ["items", "anyOf", "additionalProperties"]) {
      const value = node[key];
      if (Array.isArray(value)) value.forEach((member) => walk(member, depth));
      else walk(value, depth);
    }
  };
  walk(schema, 1);
  if (properties > 5000) problems.push(`${properties} properties (at most 5,000)`);
  if (deepest > 10) problems.push(`nested ${deepest} levels deep (at most 10)`);
  return problems;
}

function findings(schema: unknown, profile: Profile): Omit<LintFinding, "fixable">[] {
  const out: Omit<LintFinding, "fixable">[] = [];
  const visit = (node: unknown, pointer: string) => {
    if (!isObject(node)) return;
    for (const rule of RULES) {
      const severity = rule.severity[profile];
      if (severity === undefined || (rule.root === true && pointer !== "")) continue;
      const message = rule.check(node, profile);
      if (message !== undefined) out.push({ profile, rule: rule.name, severity, pointer: pointer || "/", message });
    }
    for (const [key, value] of Object.entries(node)) {
      if (["const", "enum", "default", "examples", "example"].includes(key)) continue;
      if (["properties", "$defs", "definitions", "patternProperties"].includes(key) && isObject(value)) {
        for (const [name, sub] of Object.entries(value)) visit(sub, `${pointer}/${key}/${name}`);
      } else if (Array.isArray(value)) value.forEach((sub, index) => visit(sub, `${pointer}/${key}/${index}`));
      else visit(value, `${pointer}/${key}`);
    }
  };
  visit(schema, "");
  if (profile === "openai-strict" && isObject(schema)) {
    for (const message of strictLimits(schema)) out.push({ profile, rule: "strict-limits", severity: "error", pointer: "/", message });
  }
  return out;
}

/** Everything `profile`'s provider would reject or misread in `schema`, each marked fixable or not. */
export function lintSchema(schema: unknown, profile: Profile): LintFinding[] {
  const before = findings(schema, profile);
  if (before.length === 0) return [];
  const remaining = new Set(findings(normalizeSchema(schema, { profile }), profile).map((finding) => finding.rule));
  return before.map((finding) => ({ ...finding, fixable: !remaining.has(finding.rule) }));
}
