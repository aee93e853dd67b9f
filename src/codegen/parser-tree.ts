import { literal, valueKey } from "./code.js";

/**
 * A Zod parser as data: what the IR walker (emit-parser.ts) writes, read by two targets that
 * cannot disagree on what it means. `printParser` writes it as source for generated modules;
 * code mode builds the same live zod objects from it (src/exec/live-parser.ts), so a result
 * passes or fails there exactly as in a generated client, and no server text becomes code.
 * Every name that is called is one of the closed lists below; server text appears only as
 * values, keys and regular expression sources.
 */

/** The namespace generated modules import `@pmcp-codegen/runtime/parsers` as: the helpers below, a pattern, `JsonValueSchema`. */
export const PARSERS = "parsers";

export type ParserTree =
  | { kind: "call"; callee: Callee; args: ParserTree[]; typeArgument?: string }
  | { kind: "method"; target: ParserTree; name: ZodMethod; args: ParserTree[] }
  | { kind: "name"; name: KnownName }
  /** The parser of a named definition of the same module (`NameSchema`). */
  | { kind: "ref"; name: string }
  /** A primitive or a list of strings, written as a literal; numbers may be infinite. */
  | { kind: "value"; value: string | number | boolean | null | readonly string[] }
  /** A JSON value of any shape, written as `JSON.parse` of its text: a literal would read a `"__proto__"` key as the prototype. */
  | { kind: "data"; value: unknown }
  /** `parsers.pattern(source)`: a schema's pattern, matched in linear time. */
  | { kind: "regex"; source: string }
  | { kind: "list"; items: ParserTree[]; asConst?: boolean }
  /** A zod shape: one line per key, keys from the schema. */
  | { kind: "shape"; entries: [key: string, value: ParserTree][] }
  /** An object of the runtime's own fields (an evaluation), on one line. */
  | { kind: "fields"; entries: [key: FieldName, value: ParserTree][] };

export type ZodFactory =
  | "never"
  | "null"
  | "boolean"
  | "string"
  | "number"
  | "literal"
  | "custom"
  | "array"
  | "tuple"
  | "looseObject"
  | "strictObject"
  | "record"
  | "intersection"
  | "union";

/** The runtime's schema helpers (packages/runtime/src/schema-helpers.ts) that parsers call. */
export type RuntimeHelper =
  | "allOf"
  | "oneOf"
  | "protoProperty"
  | "minCodePoints"
  | "maxCodePoints"
  | "minItems"
  | "maxItems"
  | "format"
  | "multipleOf"
  | "isOneOfValues"
  | "otherKeysMatch"
  | "matches"
  | "ownProperties"
  | "propertyCount"
  | "not"
  | "conditional"
  | "contains"
  | "dependentRequired"
  | "dependentSchema"
  | "propertyNames"
  | "unevaluatedProperties"
  | "unevaluatedItems";

export type Callee = { of: "z"; name: ZodFactory } | { of: "parsers"; name: RuntimeHelper };

export type ZodMethod = "refine" | "gte" | "lte" | "gt" | "lt" | "min" | "max" | "exactOptional";

/** Values parsers use without calling them. */
export type KnownName = "JsonValueSchema" | "uniqueItems" | "Number.isInteger";

export type FieldName =
  | "properties"
  | "patterns"
  | "items"
  | "allProperties"
  | "allItems"
  | "branches"
  | "when"
  | "key"
  | "schema"
  | "evaluated";

/** Builders, so the walker reads as the code it stands for. */
export const zod = (name: ZodFactory, ...args: ParserTree[]): ParserTree => ({ kind: "call", callee: { of: "z", name }, args });
export const helper = (name: RuntimeHelper, ...args: ParserTree[]): ParserTree => ({ kind: "call", callee: { of: "parsers", name }, args });
export const method = (target: ParserTree, name: ZodMethod, ...args: ParserTree[]): ParserTree => ({ kind: "method", target, name, args });
export const value = (given: string | number | boolean | null | readonly string[]): ParserTree => ({ kind: "value", value: given });
export const list = (items: ParserTree[]): ParserTree => ({ kind: "list", items });
export const known = (name: KnownName): ParserTree => ({ kind: "name", name });

/** Whether a parser calls the runtime's parsers (a helper, a pattern, `JsonValueSchema`), so that its module imports them. */
export function usesParsers(code: ParserTree): boolean {
  switch (code.kind) {
    case "call":
      return code.callee.of === "parsers" || code.args.some(usesParsers);
    case "method":
      return usesParsers(code.target) || code.args.some(usesParsers);
    case "name":
      return code.name !== "Number.isInteger";
    case "regex":
      return true;
    case "list":
      return code.items.some(usesParsers);
    case "shape":
    case "fields":
      return code.entries.some(([, inner]) => usesParsers(inner));
    case "ref":
    case "value":
    case "data":
      return false;
  }
}

/** Source text of a parser; a shape's keys are indented one step deeper than `indent`. */
export function printParser(code: ParserTree, indent = ""): string {
  const print = (inner: ParserTree) => printParser(inner, indent);
  const args = (given: ParserTree[]) => given.map(print).join(", ");
  switch (code.kind) {
    case "call": {
      const owner = code.callee.of === "parsers" ? PARSERS : "z";
      const typeArgument = code.typeArgument === undefined ? "" : `<${code.typeArgument}>`;
      return `${owner}.${code.callee.name}${typeArgument}(${args(code.args)})`;
    }
    case "method":
      return `${print(code.target)}.${code.name}(${args(code.args)})`;
    case "name":
      return code.name === "Number.isInteger" ? code.name : `${PARSERS}.${code.name}`;
    case "ref":
      return `${code.name}Schema`;
    case "value":
      // JSON has no Infinity; a finite number reads the same either way.
      return typeof code.value === "number" ? String(code.value) : literal(code.value);
    case "data":
      return `JSON.parse(${literal(JSON.stringify(code.value))})`;
    case "regex":
      return `${PARSERS}.pattern(${literal(code.source)})`;
    case "list":
      return `[${args(code.items)}]${code.asConst ? " as const" : ""}`;
    case "shape": {
      if (code.entries.length === 0) return "{}";
      const inner = `${indent}  `;
      const lines = code.entries.map(([key, entry]) => `${inner}${valueKey(key)}: ${printParser(entry, inner)},\n`);
      return `{\n${lines.join("")}${indent}}`;
    }
    case "fields":
      return `{ ${code.entries.map(([key, entry]) => `${key}: ${print(entry)}`).join(", ")} }`;
  }
}
