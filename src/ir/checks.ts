import { pattern, UnsupportedPatternError } from "@pmcp-codegen/runtime/internal/patterns";
import { escapePointer, isObject } from "../json-schema/pointer.js";
import type { Check, Evaluation, EvaluationBranch, IRNode } from "./ir.js";

type Schema = Record<string, unknown>;

export interface CheckContext {
  /** 2019-09 or later (else draft-04 to -07). */
  modern: boolean;
  /** The IR of a subschema, built where it sits (`pointer`). */
  build: (schema: unknown, pointer: string) => IRNode;
  /** The same for a subschema that only ever sees strings (`propertyNames`): the other types left out. */
  buildForStrings: (schema: unknown, pointer: string) => IRNode;
  /** A local `$ref`'s target, for what it evaluates; undefined when it has none. */
  target: (ref: string) => Schema | boolean | undefined;
  warn: (pointer: string, message: string) => void;
}

/**
 * The keywords checked only at run time (`not`, `if`/`then`/`else`, `contains`, `dependent*`,
 * `propertyNames`, `unevaluated*`), one `check` node each, as Ajv applies them: the 2019-09
 * keywords only in modern dialects (Ajv's draft-07 class ignores them).
 */
export function checksOf(schema: Schema, pointer: string, context: CheckContext): IRNode[] {
  const checks: Check[] = [];
  const sub = (keyword: string) => context.build(schema[keyword], `${pointer}/${keyword}`);
  if ("not" in schema) checks.push({ kind: "not", node: sub("not") });
  // `if` without `then` and `else` changes nothing.
  if ("if" in schema && ("then" in schema || "else" in schema)) {
    const branch = (keyword: string): IRNode => (keyword in schema ? sub(keyword) : { kind: "unknown" });
    checks.push({ kind: "conditional", condition: sub("if"), onValid: branch("then"), onInvalid: branch("else") });
  }
  checks.push(...contains(schema, pointer, context));
  checks.push(...dependencies(schema, pointer, context));
  if ("propertyNames" in schema) {
    const node = context.buildForStrings(schema.propertyNames, `${pointer}/propertyNames`);
    // Keys are strings already: an unconstrained string schema (zod 4's record) checks nothing.
    if (node.kind !== "unknown" && !(node.kind === "string" && Object.keys(node).length === 1))
      checks.push({ kind: "propertyNames", node });
  }
  if (context.modern && "unevaluatedProperties" in schema && schema.unevaluatedProperties !== true) {
    checks.push({
      kind: "unevaluatedProperties",
      node: sub("unevaluatedProperties"),
      evaluated: evaluationOf(schema, pointer, context, new Set(), true),
    });
  }
  if (context.modern && "unevaluatedItems" in schema && schema.unevaluatedItems !== true) {
    checks.push({
      kind: "unevaluatedItems",
      node: sub("unevaluatedItems"),
      evaluated: evaluationOf(schema, pointer, context, new Set(), true),
    });
  }
  return checks.map((check) => ({ kind: "check", check }));
}

function contains(schema: Schema, pointer: string, context: CheckContext): Check[] {
  if (!("contains" in schema)) return [];
  const count = (keyword: string) =>
    context.modern && typeof schema[keyword] === "number" && Number.isInteger(schema[keyword]) && (schema[keyword] as number) >= 0
      ? (schema[keyword] as number)
      : undefined;
  const min = count("minContains") ?? 1;
  const max = count("maxContains");
  if (min === 0 && max === undefined) return [];
  return [{ kind: "contains", node: context.build(schema.contains, `${pointer}/contains`), min, ...(max === undefined ? {} : { max }) }];
}

/** `dependentRequired`, `dependentSchemas` (2019-09) and draft-07 `dependencies` (either form, read by every dialect). */
function dependencies(schema: Schema, pointer: string, context: CheckContext): Check[] {
  const checks: Check[] = [];
  const keywords = context.modern ? ["dependencies", "dependentRequired", "dependentSchemas"] : ["dependencies"];
  for (const keyword of keywords) {
    const map = schema[keyword];
    if (!isObject(map)) continue;
    for (const [key, value] of Object.entries(map)) {
      if (Array.isArray(value) && keyword !== "dependentSchemas") {
        const required = value.filter((name): name is string => typeof name === "string");
        if (required.length > 0) checks.push({ kind: "dependentRequired", key, required });
      } else if (keyword !== "dependentRequired" && (isObject(value) || typeof value === "boolean")) {
        const node = context.build(value, `${pointer}/${keyword}/${escapePointer(key)}`);
        if (node.kind !== "unknown") checks.push({ kind: "dependentSchema", key, node });
      }
    }
  }
  return checks;
}

/**
 * What `schema`'s keywords evaluate at its own instance location, following in-place
 * applicators; `seen` stops a `$ref` cycle that never leaves the location. At the `top`, the
 * schema's own `unevaluated*` keywords are what asks, so they do not count.
 */
function evaluationOf(schema: unknown, pointer: string, context: CheckContext, seen: Set<object>, top = false): Evaluation {
  const evaluation: Evaluation = { properties: [], patterns: [], items: 0, allProperties: false, allItems: false, branches: [] };
  if (!isObject(schema) || seen.has(schema)) return evaluation;
  const inner = new Set(seen).add(schema);
  const nested = (sub: unknown, at: string) => evaluationOf(sub, at, context, inner);
  if (isObject(schema.properties)) evaluation.properties = Object.keys(schema.properties);
  if (isObject(schema.patternProperties)) evaluation.patterns = Object.keys(schema.patternProperties).filter(compiles);
  evaluation.allProperties = "additionalProperties" in schema || (!top && "unevaluatedProperties" in schema);
  if (Array.isArray(schema.prefixItems)) evaluation.items = schema.prefixItems.length;
  // Ajv counts every item evaluated once `items` (any form but a list), `unevaluatedItems` or a non-trivial `contains` is present.
  evaluation.allItems =
    ("items" in schema && !Array.isArray(schema.items)) ||
    (!top && "unevaluatedItems" in schema) ||
    ("contains" in schema && schema.contains !== true && !(isObject(schema.contains) && Object.keys(schema.contains).length === 0));
  const branches: EvaluationBranch[] = [];
  const always = (sub: unknown, at: string) => {
    branches.push({ when: { kind: "always" }, evaluated: nested(sub, at) });
  };
  for (const keyword of ["$ref", "$dynamicRef", "$recursiveRef"]) {
    const ref = schema[keyword];
    if (typeof ref !== "string") continue;
    const target = keyword === "$recursiveRef" ? undefined : context.target(ref);
    if (target !== undefined) always(target, `${pointer}/${keyword}`);
    else {
      // What a reference the IR cannot follow evaluates is unknown: everything, so that nothing is rejected for it.
      evaluation.allProperties = true;
      evaluation.allItems = true;
    }
  }
  if (Array.isArray(schema.allOf)) for (const [index, member] of schema.allOf.entries()) always(member, `${pointer}/allOf/${index}`);
  for (const keyword of ["anyOf", "oneOf"]) {
    const list = schema[keyword];
    if (!Array.isArray(list)) continue;
    list.forEach((member, index) => {
      const at = `${pointer}/${keyword}/${index}`;
      branches.push({ when: { kind: "valid", node: context.build(member, at) }, evaluated: nested(member, at) });
    });
  }
  if ("if" in schema && ("then" in schema || "else" in schema)) {
    // What `if` evaluated counts when it validates, with `then`; else only what `else` evaluated.
    const condition = context.build(schema.if, `${pointer}/if`);
    branches.push({ when: { kind: "valid", node: condition }, evaluated: nested(schema.if, `${pointer}/if`) });
    if ("then" in schema) branches.push({ when: { kind: "valid", node: condition }, evaluated: nested(schema.then, `${pointer}/then`) });
    if ("else" in schema) branches.push({ when: { kind: "invalid", node: condition }, evaluated: nested(schema.else, `${pointer}/else`) });
  }
  for (const keyword of ["dependentSchemas", "dependencies"]) {
    const map = schema[keyword];
    if (!isObject(map)) continue;
    for (const [key, value] of Object.entries(map)) {
      const at = `${pointer}/${keyword}/${escapePointer(key)}`;
      if (!Array.isArray(value)) branches.push({ when: { kind: "hasKey", key }, evaluated: nested(value, at) });
    }
  }
  evaluation.branches = branches.filter((branch) => !isEmpty(branch.evaluated));
  return evaluation;
}

function isEmpty(evaluation: Evaluation): boolean {
  return (
    evaluation.properties.length === 0 &&
    evaluation.patterns.length === 0 &&
    evaluation.items === 0 &&
    !evaluation.allProperties &&
    !evaluation.allItems &&
    evaluation.branches.length === 0
  );
}

/** Whether a pattern is checked: an ECMAScript regular expression (with the `u` flag) that the linear engine takes. */
export function compiles(source: string): boolean {
  return patternProblem(source) === undefined;
}

/**
 * Why a pattern is left unchecked, in a warning's words: not a regular expression Ajv would read
 * (with the `u` flag), or one that cannot be matched in linear time (lookaround, a backreference).
 */
export function patternProblem(source: string): string | undefined {
  try {
    pattern(source);
    return undefined;
  } catch (error) {
    if (!(error instanceof UnsupportedPatternError)) throw error;
    if (error.invalid) return "pattern is not a valid ECMA-262 (unicode) regular expression; not checked";
    return `pattern cannot be matched in linear time: ${error.reason}; not checked`;
  }
}
