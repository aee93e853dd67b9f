import { pattern, regExpSyntaxProblem, UnsupportedPatternError } from "@pmcp-codegen/runtime/internal/patterns";
import type { ErrorObject, ValidateFunction } from "ajv";
import { Ajv, MissingRefError, type Options } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { PmcpError } from "../errors.js";
import { isDraft07OrOlder } from "./dialect.js";
import type { Schema } from "./keywords.js";
import { isObject, joinPointer, pointerKeys } from "./pointer.js";
import { resolveRef } from "./refs.js";
import { walkSchemas } from "./traverse.js";

export type { ErrorObject, ValidateFunction };

/**
 * Patterns from schemas are matched in linear time (the runtime's `pattern`, RE2's engine): with
 * RegExp, a server's `^(a+)+$` would block the thread for minutes on 31 characters. `rx.toString()`
 * is Ajv's key for a compiled pattern; `code` is for standalone code, which is never generated here.
 */
const linearPatterns = Object.assign((source: string, flags: string) => pattern(source, flags.includes("u")), {
  code: "pattern",
});

/**
 * `ownProperties`: a value's own properties only. By default Ajv reads the prototype chain, so
 * `required: ["constructor"]` is met by `{}` and an optional `constructor` can never be left out.
 */
const OPTIONS: Options = {
  strict: false,
  allErrors: true,
  logger: false,
  validateFormats: true,
  ownProperties: true,
  code: { regExp: linearPatterns },
};

type Dialect = "draft-07" | "2020-12";

/**
 * One Ajv per dialect, made on first use: building one, with its formats, costs more than
 * compiling most tool schemas. Those without the `u` flag are for schemas whose patterns are
 * JavaScript only without it (`^[\w-.]+$`).
 */
const instances = new Map<`${Dialect} ${"unicode" | "plain"}`, Ajv>();

function ajvFor(dialect: Dialect, unicode = true): Ajv {
  const key = `${dialect} ${unicode ? "unicode" : "plain"}` as const;
  let ajv = instances.get(key);
  if (ajv === undefined) {
    const options = { ...OPTIONS, unicodeRegExp: unicode };
    ajv = dialect === "draft-07" ? new Ajv(options) : new Ajv2020(options);
    addFormats.default(ajv);
    instances.set(key, ajv);
  }
  return ajv;
}

/** The `format` names validation checks; any other format passes every string unchecked. */
export function knownFormats(): string[] {
  return Object.keys(ajvFor("2020-12").formats).sort();
}

/**
 * Validators by schema object: a tool's schema is compiled once however many parts of a run ask
 * (restoring a model's arguments, sampling, serving). Schemas are never changed after they are read.
 */
const compiled = new WeakMap<object, ValidateFunction>();

/**
 * A validator for one JSON Schema, in its own dialect: draft-07 and older by `$schema`,
 * else 2020-12 (MCP's default). Remote `$ref`s are never fetched; such a schema fails to compile,
 * as does one with a pattern that cannot be matched in linear time (validatorFor checks the rest).
 */
export function compileSchema(schema: unknown): ValidateFunction {
  const known = typeof schema === "object" && schema !== null ? compiled.get(schema) : undefined;
  if (known !== undefined) return known;
  const validate = compileWith(ajvFor(dialectOf(schema)), schema);
  if (typeof schema === "object" && schema !== null) compiled.set(schema, validate);
  return validate;
}

const dialectOf = (schema: unknown): Dialect => (isDraft07OrOlder(schema) ? "draft-07" : "2020-12");

function compileWith(ajv: Ajv, schema: unknown): ValidateFunction {
  const checked = withProtoChecked(schema);
  try {
    return ajv.compile(checked as object);
  } finally {
    // The validator keeps what it needs. Forgetting the schema lets another with the same `$id`
    // compile (a tool listed again, a normalized copy) and a long session not hold every schema.
    if (typeof checked === "object" && checked !== null) ajv.removeSchema(checked);
  }
}

/**
 * Ajv leaves a property named `__proto__` out of `properties` (its guard against prototype
 * pollution), so that property's value went unchecked: `{"__proto__": "; rm -rf ~"}` passed a
 * schema saying `integer`. A copy checks the same subschema as the pattern property
 * `^__proto__$`, which Ajv applies to the own property of that name.
 */
function withProtoChecked(schema: unknown): unknown {
  const names = (node: Schema) => isObject(node.properties) && Object.hasOwn(node.properties, "__proto__");
  if (![...walkSchemas(schema)].some(({ node }) => names(node))) return schema;
  const copy = structuredClone(schema);
  // Parents before children: a `__proto__` property inside the one moved is met where it moved to.
  for (const { node } of walkSchemas(copy)) {
    if (!names(node)) continue;
    const properties = node.properties as Schema;
    const own: unknown = Object.getOwnPropertyDescriptor(properties, "__proto__")?.value;
    Reflect.deleteProperty(properties, "__proto__");
    const patterns: Schema = isObject(node.patternProperties) ? node.patternProperties : {};
    const KEY = "^__proto__$";
    patterns[KEY] = Object.hasOwn(patterns, KEY) ? { allOf: [patterns[KEY], own] } : own;
    node.patternProperties = patterns;
  }
  return copy;
}

/** A validator for what of a schema can be checked, and the parts that cannot (see validatorFor). */
export interface Validator {
  validate: ValidateFunction;
  /** Each part left unchecked, with its JSON pointer and why; empty when the whole schema compiled. */
  unchecked: readonly string[];
}

/** Nothing of the schema can be checked: it is not a schema Ajv can compile, even in part. */
export class UnusableSchemaError extends PmcpError<"UNUSABLE_SCHEMA"> {
  override readonly name = "UnusableSchemaError";

  constructor(message: string, options?: { cause?: unknown }) {
    super("UNUSABLE_SCHEMA", message, options);
  }
}

/** Repairs a schema may need, each removing one unusable part: more means the schema is not one. */
const MAX_REPAIRS = 64;

const validators = new WeakMap<object, Validator>();

/**
 * A validator that checks all of a schema that can be checked, for the places where a value must
 * not pass unchecked because one part of its schema does not compile (arguments on their way to
 * a server). What compileSchema would refuse is repaired one part at a time, each named in
 * `unchecked`: patterns that are JavaScript only without the `u` flag are read without it; `enum:
 * []` admits nothing, as an empty list of values says; a keyword whose value is not of the
 * keyword's form (a misspelt `type`, `required: "a"`) and a `$ref` that does not resolve (remote
 * or dangling) are left out, the schema around them still checked. Throws UnusableSchemaError
 * when nothing can be checked.
 */
export function validatorFor(schema: unknown): Validator {
  const known = typeof schema === "object" && schema !== null ? validators.get(schema) : undefined;
  if (known !== undefined) return known;
  const dialect = dialectOf(schema);
  const unchecked: string[] = [];
  let candidate = schema;
  let unicode = true;
  for (let repairs = 0; ; repairs++) {
    let validator: Validator | undefined;
    let failure: unknown;
    try {
      validator = { validate: compileWith(ajvFor(dialect, unicode), candidate), unchecked: unchecked.sort() };
    } catch (error) {
      failure = error;
    }
    if (validator !== undefined) {
      if (typeof schema === "object" && schema !== null) validators.set(schema, validator);
      return validator;
    }
    if (repairs === MAX_REPAIRS || !isObject(candidate)) throw unusable(failure);
    if (candidate === schema) candidate = structuredClone(schema);
    // Read without the u flag, `\p{L}` would be other text: then only the patterns that need it are left out.
    const patterns = failure instanceof UnsupportedPatternError && unicode ? patternsOf(candidate as Schema) : [];
    if (patterns.some(({ source }) => onlyWithoutU(source)) && !patterns.some(({ source }) => UNICODE_ONLY.test(source))) {
      unicode = false;
      unchecked.push("/: a pattern is valid only without the u flag; the patterns are read without it");
      continue;
    }
    let repaired: string[];
    try {
      repaired = repair(candidate as Schema, ajvFor(dialect, unicode), unicode, failure);
    } catch {
      // Ajv cannot check the schema against its meta-schema either (an unknown `$schema`).
      throw unusable(failure);
    }
    if (repaired.length === 0) throw unusable(failure);
    unchecked.push(...repaired);
  }
}

function unusable(failure: unknown): UnusableSchemaError {
  return new UnusableSchemaError(`the schema cannot be compiled: ${failure instanceof Error ? failure.message : String(failure)}`, {
    cause: failure,
  });
}

/** Removes from `root` (a copy, changed in place) the parts that made `failure`, and says what they were. */
function repair(root: Schema, ajv: Ajv, unicode: boolean, failure: unknown): string[] {
  const nodes = [...walkSchemas(root)];
  const done: string[] = [];
  if (failure instanceof MissingRefError) {
    for (const { node, pointer, resource } of nodes) {
      if (typeof node.$ref !== "string" || resolveRef(resource, node.$ref).kind === "found") continue;
      done.push(`${pointer || "/"}: $ref ${JSON.stringify(node.$ref)} does not resolve; not checked`);
      delete node.$ref;
    }
    return done;
  }
  for (const { node, pointer } of nodes) {
    if (!Array.isArray(node.enum) || node.enum.length > 0) continue;
    delete node.enum;
    node.allOf = [...(Array.isArray(node.allOf) ? node.allOf : []), false];
    done.push(`${pointer || "/"}: enum [] admits no value`);
  }
  if (done.length > 0) return done;
  if (failure instanceof UnsupportedPatternError) {
    for (const { source, pointer, remove } of patternsOf(root)) {
      if (regExpCompiles(source, unicode)) continue;
      done.push(
        `${pointer}: ${JSON.stringify(source)} is not a regular expression that can be matched in linear time${unicode ? " with the u flag" : ""}; not checked`,
      );
      remove();
    }
    return done;
  }
  // A keyword whose value has not the keyword's form: Ajv's check against the meta-schema says where.
  if (ajv.validateSchema(root) !== false) return done;
  const pointers = new Map(nodes.map((visit) => [visit.pointer, visit.node]));
  for (const error of ajv.errors ?? []) {
    const keys = pointerKeys(error.instancePath);
    // The deepest subschema above the error; the keyword is the key below it.
    for (let length = keys.length - 1; length >= 0; length--) {
      const node = pointers.get(joinPointer("", keys.slice(0, length)));
      const keyword = keys[length]!;
      if (node === undefined) continue;
      if (Object.hasOwn(node, keyword)) {
        done.push(
          `${joinPointer("", keys.slice(0, length + 1))}: ${JSON.stringify(node[keyword])} is not a value of "${keyword}"; not checked`,
        );
        delete node[keyword];
      }
      break;
    }
  }
  return done;
}

/** Escapes that mean one thing with the u flag and another without it. */
const UNICODE_ONLY = /\\[pP]\{|\\u\{/;

/** Every regular expression of a schema: `pattern` values and `patternProperties` keys, with the way to remove each. */
function patternsOf(root: Schema): { source: string; pointer: string; remove: () => void }[] {
  const found: { source: string; pointer: string; remove: () => void }[] = [];
  for (const { node, pointer } of walkSchemas(root)) {
    if (typeof node.pattern === "string")
      found.push({ source: node.pattern, pointer: joinPointer(pointer, ["pattern"]), remove: () => delete node.pattern });
    const properties = node.patternProperties;
    if (isObject(properties))
      for (const key of Object.keys(properties))
        found.push({ source: key, pointer: joinPointer(pointer, ["patternProperties", key]), remove: () => delete properties[key] });
  }
  return found;
}

/** Whether the linear engine takes a pattern (an ECMAScript regular expression it can match). */
function regExpCompiles(source: string, unicode: boolean): boolean {
  try {
    pattern(source, unicode);
    return true;
  } catch {
    return false;
  }
}

/** A pattern that is an ECMAScript regular expression only without the u flag (`^[\w-.]+$`). */
function onlyWithoutU(source: string): boolean {
  return regExpSyntaxProblem(source, true) !== undefined && regExpSyntaxProblem(source, false) === undefined;
}
