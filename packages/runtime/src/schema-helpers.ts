import { addFormats } from "@modelcontextprotocol/client/validators/ajv";
import { z } from "zod";
import { isJsonValue, type JsonValue, jsonEquals } from "./json-value.js";
import type { Pattern } from "./pattern.js";

/**
 * Checks used by generated parsers where zod's built-ins mean something else than
 * JSON Schema (as Ajv implements it): lengths in code points, `multipleOf`, formats,
 * JSON equality for `const`/`enum`/`uniqueItems`, `oneOf`'s "exactly one", and the
 * keywords zod has no form for (`not`, `if`, `contains`, `dependent*`, `propertyNames`,
 * `patternProperties`, `unevaluated*`). Each applies only to its own JSON type; others pass.
 */

/**
 * Any JSON value: what a tool without an output schema returns. Checked with an explicit stack,
 * not `z.json()`'s recursion: results nested thousands deep occur, and must parse.
 */
export const JsonValueSchema: z.ZodType<JsonValue> = z.custom<JsonValue>(isJsonValue, "expected a JSON value");

/**
 * `schema.safeParse(value)`, except that a value nested deeper than a recursive parser can follow
 * (zod recurses, a thousand levels or so) is a mismatch, not a RangeError.
 */
export function safeParseDeep<T>(schema: z.ZodType<T>, value: unknown): z.ZodSafeParseResult<T> {
  try {
    return schema.safeParse(value);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    const issues: z.core.$ZodIssue[] = [{ code: "custom", message: "nested too deep to check", path: [], input: value }];
    return { success: false, error: new z.ZodError(issues) as z.ZodError<T> };
  }
}

export function minCodePoints(min: number): (text: string) => boolean {
  return (text) => codePoints(text) >= min;
}

export function maxCodePoints(max: number): (text: string) => boolean {
  return (text) => codePoints(text) <= max;
}

function codePoints(text: string): number {
  let count = 0;
  for (const _char of text) count++;
  return count;
}

type Check = RegExp | ((value: never) => boolean);
type FormatDefinition = boolean | Check | { type?: "string" | "number"; validate: Check };

/** ajv-formats' full-mode definition of a format, as the client package bundles it (undefined when unknown). */
function formatDefinition(name: string): FormatDefinition | undefined {
  // The lookup is a plain object's: `constructor` would find Object itself.
  if (name in Object.prototype) return undefined;
  try {
    return addFormats.get(name as Parameters<typeof addFormats.get>[0]) as unknown as FormatDefinition;
  } catch {
    return undefined;
  }
}

/**
 * Ajv's own format checks (ajv-formats, full mode), applied to the type each format is
 * defined for (`int32` to numbers, `email` to strings). Unknown formats are not checked,
 * as Ajv does when not strict.
 */
export function format(name: string): (value: string | number) => boolean {
  const definition = formatDefinition(name);
  if (definition === undefined || typeof definition === "boolean") return () => true;
  const { type = "string", validate } = typeof definition === "object" && "validate" in definition ? definition : { validate: definition };
  const test = validate instanceof RegExp ? (value: string) => validate.test(value) : (validate as (value: string | number) => boolean);
  return (value) => typeof value !== type || test(value as never);
}

/**
 * Ajv's rule (without multipleOfPrecision): the quotient must equal `parseInt` of itself, so a
 * quotient of 1e21 or more (written with an exponent) is not a multiple, as Ajv decides.
 */
export function multipleOf(divisor: number): (value: number) => boolean {
  return (value) => {
    const quotient = value / divisor;
    return quotient === Number.parseInt(String(quotient), 10);
  };
}

/**
 * JSON Schema `allOf` for parsers zod would merge: `z.intersection` forgives a key one closed
 * object does not know when the other does, where JSON Schema rejects it. Each member judges
 * the value alone; the value is returned as given.
 */
export function allOf<A extends z.ZodType, B extends z.ZodType>(left: A, right: B): z.ZodType<z.output<A> & z.output<B>> {
  return z.unknown().superRefine((value, context) => {
    for (const member of [left, right]) {
      const result = member.safeParse(value);
      if (!result.success)
        for (const issue of result.error.issues) context.addIssue({ code: "custom", message: issue.message, path: issue.path });
    }
  }) as unknown as z.ZodType<z.output<A> & z.output<B>>;
}

export function isOneOfValues(values: readonly unknown[]): (value: unknown) => boolean {
  return (value) => values.some((candidate) => jsonEquals(candidate, value));
}

/** A tuple's `minItems` (zod's `.min` is for arrays only). */
export function minItems(min: number): (items: readonly unknown[]) => boolean {
  return (items) => items.length >= min;
}

/** A tuple's `maxItems`. */
export function maxItems(max: number): (items: readonly unknown[]) => boolean {
  return (items) => items.length <= max;
}

export function uniqueItems(items: readonly unknown[]): boolean {
  return items.every((item, index) => items.findIndex((other) => jsonEquals(other, item)) === index);
}

export function propertyCount(min: number, max: number): (value: object) => boolean {
  return (value) => {
    const count = Object.keys(value).length;
    return count >= min && count <= max;
  };
}

/**
 * Keys beyond the zod shape: a key matching a `patternProperties` pattern must fit its schema
 * (declared keys too), and `additional` (`additionalProperties`) covers only keys matched
 * neither by `declared` nor by any pattern.
 */
export function otherKeysMatch(
  declared: readonly string[],
  patterns: readonly (readonly [Pattern, z.ZodType])[],
  additional: z.ZodType | boolean,
): (value: object) => boolean {
  return (value) =>
    Object.entries(value).every(([key, item]) => {
      const matching = patterns.filter(([pattern]) => pattern.test(key));
      if (!matching.every(([, schema]) => schema.safeParse(item).success)) return false;
      if (declared.includes(key) || matching.length > 0) return true;
      return typeof additional === "boolean" ? additional : additional.safeParse(item).success;
    });
}

/**
 * An object parser for a schema that declares a property named as one of Object.prototype's
 * (`constructor`, `toString`). zod reads the prototype chain, as Ajv does by default: a value
 * without that key would be read as holding the inherited function, so an optional `toString`
 * could never be left out. The parser reads a copy without a prototype, so only own properties;
 * what it returns is zod's own new object, with `Object.prototype`.
 */
export function ownProperties<T extends z.ZodType>(object: T): z.ZodType<z.output<T>> {
  return z.preprocess(
    (input) => (isPlainObject(input) && Object.getPrototypeOf(input) !== null ? Object.assign(Object.create(null), input) : input),
    object,
  ) as unknown as z.ZodType<z.output<T>>;
}

/**
 * An object parser for a schema that declares a `__proto__` property. zod neither checks nor
 * keeps that key (assigning it to a plain object would set the prototype instead), so it is
 * checked here against `value` and defined as an own property of the parsed object: the data it
 * is. The parsed object's prototype stays `Object.prototype`.
 */
export function protoProperty<T extends z.ZodType>(object: T, value: z.ZodType, required: boolean): z.ZodType<z.output<T>> {
  return z.unknown().transform((input, context) => {
    const parsed = object.safeParse(input);
    let failed = false;
    const issue = (message: string, path: PropertyKey[]) => {
      failed = true;
      context.addIssue({ code: "custom", message, path });
    };
    if (!parsed.success) for (const { message, path } of parsed.error.issues) issue(message, path);
    let own: { value: unknown } | undefined;
    const given = isPlainObject(input) ? Object.getOwnPropertyDescriptor(input, "__proto__") : undefined;
    if (given !== undefined) {
      const checked = value.safeParse(given.value);
      if (checked.success) own = { value: checked.data };
      else for (const { message, path } of checked.error.issues) issue(message, ["__proto__", ...path]);
    } else if (isPlainObject(input) && required) issue("Invalid input: expected a value, received undefined", ["__proto__"]);
    if (failed || !parsed.success) return z.NEVER;
    if (own !== undefined)
      Object.defineProperty(parsed.data, "__proto__", { ...own, enumerable: true, writable: true, configurable: true });
    return parsed.data;
  }) as unknown as z.ZodType<z.output<T>>;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const passes = (schema: z.ZodType, value: unknown) => schema.safeParse(value).success;

/** `not`: the value must not fit `schema`. */
export function not(schema: z.ZodType): (value: unknown) => boolean {
  return (value) => !passes(schema, value);
}

/** `if`/`then`/`else`: `onValid` applies when `condition` fits, else `onInvalid`. */
export function conditional(condition: z.ZodType, onValid: z.ZodType, onInvalid: z.ZodType): (value: unknown) => boolean {
  return (value) => passes(passes(condition, value) ? onValid : onInvalid, value);
}

/** `contains` with `minContains`/`maxContains`: how many items fit `schema`. */
export function contains(schema: z.ZodType, min: number, max: number): (value: unknown) => boolean {
  return (value) => {
    if (!Array.isArray(value)) return true;
    const count = value.filter((item) => passes(schema, item)).length;
    return count >= min && count <= max;
  };
}

/** `dependentRequired`: when `key` is present, so are all of `required`. */
export function dependentRequired(key: string, required: readonly string[]): (value: unknown) => boolean {
  return (value) => !isPlainObject(value) || !Object.hasOwn(value, key) || required.every((name) => Object.hasOwn(value, name));
}

/** `dependentSchemas`: when `key` is present, the whole object fits `schema`. */
export function dependentSchema(key: string, schema: z.ZodType): (value: unknown) => boolean {
  return (value) => !isPlainObject(value) || !Object.hasOwn(value, key) || passes(schema, value);
}

/** `propertyNames`: every key, as a string, fits `schema`. */
export function propertyNames(schema: z.ZodType): (value: unknown) => boolean {
  return (value) => !isPlainObject(value) || Object.keys(value).every((key) => passes(schema, key));
}

/** What a schema evaluates of an instance (2020-12 annotations, as Ajv collects them); written by the generator. */
export interface Evaluation {
  properties: readonly string[];
  patterns: readonly Pattern[];
  items: number;
  allProperties: boolean;
  allItems: boolean;
  branches: readonly EvaluationBranch[];
}

export type EvaluationBranch = ({ when: "always" } | { when: "valid" | "invalid"; schema: z.ZodType } | { when: "hasKey"; key: string }) & {
  evaluated: Evaluation;
};

interface Evaluated {
  keys: Set<string>;
  patterns: Pattern[];
  items: number;
  allProperties: boolean;
  allItems: boolean;
}

function collect(evaluation: Evaluation, value: unknown, into: Evaluated): Evaluated {
  for (const key of evaluation.properties) into.keys.add(key);
  into.patterns.push(...evaluation.patterns);
  into.items = Math.max(into.items, evaluation.items);
  into.allProperties ||= evaluation.allProperties;
  into.allItems ||= evaluation.allItems;
  for (const branch of evaluation.branches) {
    const applies =
      branch.when === "always" ||
      (branch.when === "hasKey"
        ? isPlainObject(value) && Object.hasOwn(value, branch.key)
        : passes(branch.schema, value) === (branch.when === "valid"));
    if (applies) collect(branch.evaluated, value, into);
  }
  return into;
}

function evaluated(evaluation: Evaluation, value: unknown): Evaluated {
  return collect(evaluation, value, { keys: new Set(), patterns: [], items: 0, allProperties: false, allItems: false });
}

/** `unevaluatedProperties`: keys nothing else evaluated must fit `schema` (`false`: there must be none). */
export function unevaluatedProperties(evaluation: Evaluation, schema: z.ZodType | false): (value: unknown) => boolean {
  return (value) => {
    if (!isPlainObject(value)) return true;
    const seen = evaluated(evaluation, value);
    if (seen.allProperties) return true;
    return Object.entries(value).every(
      ([key, item]) =>
        seen.keys.has(key) || seen.patterns.some((pattern) => pattern.test(key)) || (schema !== false && passes(schema, item)),
    );
  };
}

/** `unevaluatedItems`: items after those evaluated must fit `schema` (`false`: there must be none). */
export function unevaluatedItems(evaluation: Evaluation, schema: z.ZodType | false): (value: unknown) => boolean {
  return (value) => {
    if (!Array.isArray(value)) return true;
    const seen = evaluated(evaluation, value);
    if (seen.allItems) return true;
    return value.slice(seen.items).every((item) => schema !== false && passes(schema, item));
  };
}

/** JSON Schema `oneOf`: valid against exactly one member, not merely at least one. */
export function oneOf<const T extends readonly [z.ZodType, z.ZodType, ...z.ZodType[]]>(members: T): z.ZodType<z.infer<T[number]>> {
  return z
    .union(members)
    .refine(
      (value) => members.filter((member) => member.safeParse(value).success).length === 1,
      "must match exactly one oneOf member",
    ) as unknown as z.ZodType<z.infer<T[number]>>;
}
