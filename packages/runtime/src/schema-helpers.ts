import { fullFormats } from "ajv-formats/dist/formats.js";
import { z } from "zod";

/**
 * Checks used by generated parsers where zod's built-ins mean something else than
 * JSON Schema (as Ajv implements it): lengths in code points, `multipleOf`, formats,
 * JSON equality for `const`/`enum`/`uniqueItems`, `oneOf`'s "exactly one".
 */

/** Any JSON value: what a tool without an output schema returns. */
export const JsonValueSchema = z.json();
export type JsonValue = z.infer<typeof JsonValueSchema>;

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
const FORMATS = fullFormats as unknown as Record<string, FormatDefinition | undefined>;

/**
 * Ajv's own format checks (ajv-formats, full mode), applied to the type each format is
 * defined for (`int32` to numbers, `email` to strings). Unknown formats are not checked,
 * as Ajv does when not strict.
 */
export function format(name: string): (value: string | number) => boolean {
  const definition = Object.hasOwn(FORMATS, name) ? FORMATS[name] : undefined;
  if (definition === undefined || typeof definition === "boolean") return () => true;
  const { type = "string", validate } = typeof definition === "object" && "validate" in definition ? definition : { validate: definition };
  const test = validate instanceof RegExp ? (value: string) => validate.test(value) : (validate as (value: string | number) => boolean);
  return (value) => typeof value !== type || test(value as never);
}

/** Ajv's rule (without multipleOfPrecision): the quotient must be an integer. */
export function multipleOf(divisor: number): (value: number) => boolean {
  return (value) => Number.isInteger(value / divisor);
}

/** Deep equality of JSON values; key order does not matter. */
export function jsonEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, index) => jsonEquals(item, b[index]));
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  return keys.length === Object.keys(right).length && keys.every((key) => Object.hasOwn(right, key) && jsonEquals(left[key], right[key]));
}

export function isOneOfValues(values: readonly unknown[]): (value: unknown) => boolean {
  return (value) => values.some((candidate) => jsonEquals(candidate, value));
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

/** For objects with declared properties and an `additionalProperties` schema: the undeclared keys' values. */
export function otherKeysMatch(declared: readonly string[], schema: z.ZodType): (value: object) => boolean {
  return (value) => Object.entries(value).every(([key, item]) => declared.includes(key) || schema.safeParse(item).success);
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
