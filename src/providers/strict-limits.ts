import type { Schema } from "../json-schema/keywords.js";
import { isObject } from "../json-schema/pointer.js";
import { type Visit, walkSchemas } from "../json-schema/traverse.js";
import { ANTHROPIC_STRICT_LIMITS, OPENAI_STRICT_LIMITS, type Profile } from "./facts.js";

/**
 * The size limits of the strict modes, which no rewrite can fix: lint reports them, and a tool
 * past them is declared without strict mode.
 */

/** Every subschema with its pointer and nesting depth (one more inside each `properties`). */
export function* subschemas(schema: unknown): Generator<[Schema, string, number]> {
  const depths = new Map<Visit, number>();
  for (const visit of walkSchemas(schema)) {
    const depth = visit.parent === undefined ? 1 : (depths.get(visit.parent) ?? 1) + (visit.keyword === "properties" ? 1 : 0);
    depths.set(visit, depth);
    yield [visit.node, visit.pointer, depth];
  }
}

export interface LimitProblem {
  pointer: string;
  message: string;
}
const characters = (value: unknown) => (typeof value === "string" ? value : (JSON.stringify(value) ?? "")).length;
const count = (value: number) => value.toLocaleString("en-US");

/** OpenAI strict's size limits, which normalizing cannot fix. */
export function openAiStrictLimits(schema: Schema): LimitProblem[] {
  const limits = OPENAI_STRICT_LIMITS;
  const problems: LimitProblem[] = [];
  let properties = 0;
  let deepest = 0;
  let enumValues = 0;
  let text = 0;
  for (const [node, pointer, depth] of subschemas(schema)) {
    deepest = Math.max(deepest, depth);
    for (const key of ["properties", "$defs", "definitions"]) {
      if (!isObject(node[key])) continue;
      const names = Object.keys(node[key]);
      if (key === "properties") properties += names.length;
      text += names.reduce((sum, name) => sum + name.length, 0);
    }
    if ("const" in node) text += characters(node.const);
    if (Array.isArray(node.enum)) {
      const length = node.enum.reduce((sum: number, value) => sum + characters(value), 0);
      enumValues += node.enum.length;
      text += length;
      // Null beside the strings (an optional property made nullable) still leaves "an enum property with string values".
      const strings = node.enum.filter((value): value is string => typeof value === "string");
      const stringLength = strings.reduce((sum, value) => sum + value.length, 0);
      if (strings.length > limits.longEnum.values && stringLength > limits.longEnum.characters) {
        problems.push({
          pointer: pointer || "/",
          message: `an enum of ${strings.length} strings has ${stringLength} characters (at most ${count(limits.longEnum.characters)} beyond ${count(limits.longEnum.values)} values)`,
        });
      }
    }
  }
  const root = "/";
  if (properties > limits.properties)
    problems.push({ pointer: root, message: `${properties} properties (at most ${count(limits.properties)})` });
  if (deepest > limits.depth) problems.push({ pointer: root, message: `nested ${deepest} levels deep (at most ${count(limits.depth)})` });
  if (enumValues > limits.enumValues)
    problems.push({ pointer: root, message: `${enumValues} enum values in all (at most ${count(limits.enumValues)})` });
  if (text > limits.characters)
    problems.push({
      pointer: root,
      message: `property names, definition names, enum and const values have ${text} characters (at most ${count(limits.characters)})`,
    });
  return problems;
}

/** What one schema spends of Anthropic strict's per-request budgets of optional and union-typed parameters. */
export function anthropicStrictCounts(schema: unknown): { optional: number; unions: number } {
  let optional = 0;
  let unions = 0;
  for (const [node] of subschemas(schema)) {
    if (isObject(node.properties)) {
      const required = new Set(Array.isArray(node.required) ? node.required : []);
      optional += Object.keys(node.properties).filter((name) => !required.has(name)).length;
    }
    if (Array.isArray(node.anyOf) || (Array.isArray(node.type) && node.type.length > 1)) unions++;
  }
  return { optional, unions };
}

/** Anthropic strict's per-request limits, checked per schema (the request total is the caller's). */
function anthropicStrictLimits(schema: Schema): LimitProblem[] {
  const { optional, unions } = anthropicStrictCounts(schema);
  const problems: LimitProblem[] = [];
  if (optional > ANTHROPIC_STRICT_LIMITS.optional)
    problems.push({ pointer: "/", message: `${optional} optional parameters (at most ${ANTHROPIC_STRICT_LIMITS.optional} per request)` });
  if (unions > ANTHROPIC_STRICT_LIMITS.unions)
    problems.push({
      pointer: "/",
      message: `${unions} parameters with union types (at most ${ANTHROPIC_STRICT_LIMITS.unions} per request)`,
    });
  return problems;
}

/** The limits of the profiles that have the strict-limits rule, per schema. */
export const STRICT_LIMITS: Partial<Record<Profile, (schema: Schema) => LimitProblem[]>> = {
  "openai-strict": openAiStrictLimits,
  "anthropic-strict": anthropicStrictLimits,
};
