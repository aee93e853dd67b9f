/**
 * What each LLM provider rejects or silently misreads in a tool schema, from the table
 * on the facts page. A finding says whether `pmcp schema normalize` fixes it: decided by
 * normalizing for the same profile and linting again, not by a hand-kept list.
 */

import type { Schema } from "../json-schema/keywords.js";
import { isObject } from "../json-schema/pointer.js";
import { isNullTyped, typeIncludes } from "../json-schema/predicates.js";
import { type Visit, walkSchemas } from "../json-schema/traverse.js";
import { normalizedFor, normalizeSchema } from "../normalize/normalize.js";
import {
  ANTHROPIC_STRICT_UNSUPPORTED_REGEX,
  anthropicStrictRejects,
  GEMINI_FIELDS,
  GEMINI_UNSUPPORTED_CONSTRAINTS,
  type LintRule,
  OPENAI_STRICT_UNSUPPORTED,
  PROVIDER_FACTS,
  type Profile,
  type Severity,
} from "../providers/facts.js";
import { STRICT_LIMITS, subschemas } from "../providers/strict-limits.js";

/** One thing a provider rejects or misreads, where it is, and whether normalizing for the profile fixes it. */
export interface LintFinding {
  profile: Profile;
  rule: LintRule;
  severity: Severity;
  pointer: string;
  message: string;
  fixable: boolean;
}

interface Rule {
  name: LintRule;
  /** Only the root schema. */
  root?: boolean;
  check(node: Schema, profile: Profile, pointer: string): string | undefined;
}

const list = (keys: string[]) => keys.join(", ");
/** Keys outside Gemini's Schema that a more specific rule already reports. */
const GEMINI_REPORTED_ELSEWHERE = new Set([
  "$ref",
  "const",
  "oneOf",
  "allOf",
  "prefixItems",
  "additionalProperties",
  "$schema",
  "$id",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
]);

const RULES: Rule[] = [
  {
    name: "root-not-object",
    root: true,
    check: (node) =>
      node.type === "object" ? undefined : `the root must be {"type": "object"}, got ${JSON.stringify(node.type ?? "no type")}`,
  },
  {
    name: "root-combinator",
    root: true,
    check: (node, profile) => {
      // Anthropic's error names only these ("input_schema does not support oneOf, allOf, or anyOf at the top level"); a root `not` is reported accepted.
      const keys = profile === "anthropic" ? ["anyOf", "oneOf", "allOf"] : ["anyOf", "oneOf", "allOf", "enum", "not"];
      const key = keys.find((candidate) => candidate in node);
      return key === undefined ? undefined : `the root may not use ${key}`;
    },
  },
  {
    name: "untyped-node",
    check: (node) =>
      // Gemini: "type: must be specified when not using one_of, any_of or all_of fields"; OpenAI strict: every node needs a type.
      node.type === undefined && !["anyOf", "oneOf", "allOf", "$ref"].some((key) => key in node)
        ? "a schema node needs a type (a free-form value has none)"
        : undefined,
  },
  {
    name: "object-without-properties",
    check: (node) => (typeIncludes(node, "object") && !isObject(node.properties) ? 'an object needs "properties"' : undefined),
  },
  {
    name: "empty-object",
    check: (node, profile, pointer) => {
      if (!typeIncludes(node, "object")) return undefined;
      const count = isObject(node.properties) ? Object.keys(node.properties).length : undefined;
      // Gemini: "properties: should be non-empty for OBJECT type". OpenAI: "object schema missing properties". No object without
      // properties satisfies both; a root without them is a tool without parameters, which Gemini declares with no `parameters`.
      if (profile === "portable")
        return count || pointer === ""
          ? undefined
          : 'an object without properties has no portable form: Gemini rejects an empty "properties", OpenAI a missing one';
      return count === 0
        ? 'Gemini rejects an empty "properties" (a tool without parameters should be declared without "parameters")'
        : undefined;
    },
  },
  {
    name: "properties-on-non-object",
    check: (node) => {
      const keys = ["properties", "required"].filter((key) => key in node);
      return keys.length > 0 && !typeIncludes(node, "object")
        ? `${list(keys)} only allowed for type object, got ${JSON.stringify(node.type ?? "no type")}`
        : undefined;
    },
  },
  {
    name: "unknown-keyword",
    check: (node) => {
      // Gemini's Schema is a protobuf message: unknown fields are rejected ("Unknown name … Cannot find field").
      const keys = Object.keys(node).filter((key) => !GEMINI_FIELDS.has(key) && !GEMINI_REPORTED_ELSEWHERE.has(key));
      return keys.length > 0 ? `${list(keys)} not a field of Gemini's Schema` : undefined;
    },
  },
  {
    name: "anyof-with-siblings",
    check: (node) => {
      const siblings = Object.keys(node).filter((key) => key !== "anyOf");
      return Array.isArray(node.anyOf) && siblings.length > 0
        ? `anyOf beside ${list(siblings)}: Vertex AI wants anyOf alone on its node`
        : undefined;
    },
  },
  {
    name: "ref",
    check: (node) =>
      typeof node.$ref === "string" && node.$ref.startsWith("#")
        ? `$ref ${JSON.stringify(node.$ref)} is not understood; it must be inlined`
        : undefined,
  },
  {
    name: "remote-ref",
    check: (node) =>
      typeof node.$ref === "string" && !node.$ref.startsWith("#")
        ? `$ref ${JSON.stringify(node.$ref)} points outside the schema`
        : undefined,
  },
  {
    name: "null-union",
    check: (node) =>
      ["anyOf", "oneOf"].some((key) => Array.isArray(node[key]) && (node[key] as unknown[]).some(isNullTyped))
        ? "a union with null must be written as nullable: true"
        : undefined,
  },
  {
    name: "type-array",
    check: (node) => (Array.isArray(node.type) ? `type must be one string, got ${JSON.stringify(node.type)}` : undefined),
  },
  {
    name: "one-of",
    check: (node) => (Array.isArray(node.oneOf) ? "oneOf is not supported here (anyOf is)" : undefined),
  },
  {
    name: "all-of",
    check: (node, profile) => {
      if (!Array.isArray(node.allOf)) return undefined;
      // Anthropic strict supports allOf, "with limitations - allOf with $ref not supported".
      if (profile === "anthropic-strict")
        return node.allOf.some((member) => isObject(member) && holdsRef(member))
          ? "allOf with $ref is not supported; inline the references"
          : undefined;
      return "allOf is not supported here; merge its members";
    },
  },
  {
    name: "tuple",
    check: (node, profile) => {
      // Anthropic is reported to reject only the draft-07 form ("must match JSON Schema draft 2020-12"); prefixItems is unconfirmed.
      if (profile === "anthropic")
        return Array.isArray(node.items) ? "draft-07 tuples (items: [...]) are rejected; use prefixItems" : undefined;
      return Array.isArray(node.prefixItems) || Array.isArray(node.items)
        ? "tuples (prefixItems or items: [...]) are not supported"
        : undefined;
    },
  },
  {
    name: "array-without-items",
    check: (node) =>
      typeIncludes(node, "array") && node.items === undefined && node.prefixItems === undefined ? 'an array needs "items"' : undefined,
  },
  {
    name: "strict-additional-properties",
    check: (node) =>
      (typeIncludes(node, "object") || (node.type === undefined && isObject(node.properties))) && node.additionalProperties !== false
        ? "strict mode needs additionalProperties: false on every object"
        : undefined,
  },
  {
    name: "strict-all-required",
    check: (node) => {
      if (!typeIncludes(node, "object") || !isObject(node.properties)) return undefined;
      const required = new Set(Array.isArray(node.required) ? node.required : []);
      const optional = Object.keys(node.properties).filter((name) => !required.has(name));
      return optional.length > 0 ? `strict mode needs every property in "required" (optional: ${optional.join(", ")})` : undefined;
    },
  },
  {
    name: "additional-properties",
    check: (node) => ("additionalProperties" in node ? "additionalProperties is not accepted" : undefined),
  },
  {
    name: "non-string-enum",
    check: (node) =>
      Array.isArray(node.enum) && node.enum.some((value) => typeof value !== "string") ? "enum values must be strings" : undefined,
  },
  {
    name: "const",
    check: (node) => ("const" in node ? "const is not accepted (use a one-value enum)" : undefined),
  },
  {
    name: "unsupported-format",
    check: (node, profile) => {
      if (typeof node.format !== "string") return undefined;
      const allowed = PROVIDER_FACTS[profile].formats;
      return allowed === undefined || allowed.has(node.format)
        ? undefined
        : `format "${node.format}" is ${profile === "openai" ? "rejected by some models" : "not supported"}`;
    },
  },
  {
    name: "unsupported-constraint",
    check: (node, profile) => {
      const found = Object.entries(node)
        .filter(([key, value]) =>
          profile === "anthropic-strict" ? anthropicStrictRejects(key, value) : GEMINI_UNSUPPORTED_CONSTRAINTS.has(key),
        )
        .map(([key]) => key);
      return found.length > 0 ? `${list(found)} not supported` : undefined;
    },
  },
  {
    name: "strict-unsupported-keyword",
    check: (node) => {
      // openai-node refuses these: "uses unsupported keyword … cannot be represented in strict Structured Outputs".
      const found = Object.keys(node).filter((key) => OPENAI_STRICT_UNSUPPORTED.has(key));
      return found.length > 0 ? `${list(found)} not supported in strict mode` : undefined;
    },
  },
  {
    name: "complex-enum",
    check: (node) =>
      Array.isArray(node.enum) && node.enum.some((value) => typeof value === "object" && value !== null)
        ? "enum values must be strings, numbers, booleans or null"
        : undefined,
  },
  {
    name: "regex-features",
    check: (node) =>
      typeof node.pattern === "string" && ANTHROPIC_STRICT_UNSUPPORTED_REGEX.test(node.pattern)
        ? "pattern uses backreferences, lookaround or \\b/\\B, which strict mode does not support"
        : undefined,
  },
  {
    name: "schema-metadata",
    check: (node) => (["$schema", "$id"].some((key) => key in node) ? "$schema and $id are not accepted" : undefined),
  },
];

/** Whether each subschema met so far has a `$ref` in it or below it: filled a whole subtree at a time. */
const refsBelow = new WeakMap<Schema, boolean>();

/**
 * Whether `schema` or any subschema under it has a `$ref`. Answered for the whole subtree at once,
 * so that asking again for each nested `allOf` keeps a lint linear however deep the nesting.
 */
function holdsRef(schema: Schema): boolean {
  const known = refsBelow.get(schema);
  if (known !== undefined) return known;
  const visits = [...walkSchemas(schema)];
  const marked = new Set<Schema>();
  for (const visit of visits) {
    if (typeof visit.node.$ref !== "string") continue;
    for (let at: Visit | undefined = visit; at !== undefined && !marked.has(at.node); at = at.parent) marked.add(at.node);
  }
  for (const visit of visits) refsBelow.set(visit.node, marked.has(visit.node));
  return marked.has(schema);
}

function findings(schema: unknown, profile: Profile): Omit<LintFinding, "fixable">[] {
  const out: Omit<LintFinding, "fixable">[] = [];
  const severities = PROVIDER_FACTS[profile].rules;
  for (const [node, pointer] of subschemas(schema)) {
    for (const rule of RULES) {
      const severity = severities[rule.name];
      if (severity === undefined || (rule.root === true && pointer !== "")) continue;
      const message = rule.check(node, profile, pointer);
      if (message !== undefined) out.push({ profile, rule: rule.name, severity, pointer: pointer || "/", message });
    }
  }
  const limits = STRICT_LIMITS[profile];
  const severity = severities["strict-limits"];
  if (limits !== undefined && severity !== undefined && isObject(schema)) {
    for (const { pointer, message } of limits(schema)) out.push({ profile, rule: "strict-limits", severity, pointer, message });
  }
  return out;
}

/** Everything `profile`'s provider would reject or misread in `schema`, each marked fixable or not. */
export function lintSchema(schema: unknown, profile: Profile): LintFinding[] {
  const before = findings(schema, profile);
  if (before.length === 0) return [];
  let remaining: Set<string> | undefined;
  try {
    const normalized = isObject(schema) ? normalizedFor(schema, profile).schema : normalizeSchema(schema, { profile });
    remaining = new Set(findings(normalized, profile).map((finding) => finding.rule));
  } catch {
    // A schema normalize cannot rewrite (nested deeper than its recursion reaches): nothing is fixable.
  }
  return before.map((finding) => ({ ...finding, fixable: remaining !== undefined && !remaining.has(finding.rule) }));
}
