import { count } from "../count.js";
import type { Check, Evaluation, EvaluationBranch, IRNode, JsonValue, NumberNode, ObjectNode, StringNode, TupleNode } from "../ir/ir.js";
import { emitType, indexedValues } from "./emit-type.js";
import { helper, known, list, method, type ParserTree, printParser, value, zod } from "./parser-tree.js";
import { noUses, type Uses } from "./uses.js";

export interface ParserOptions {
  /** Reject keys that `additionalProperties: false` forbids; by default they are kept (lenient). */
  strictObjects: boolean;
}

/** A parser as data and as the source text of a generated module, with what it refers to. */
export interface EmittedParser {
  parser: ParserTree;
  code: string;
  uses: Uses;
}

/**
 * IR → Zod 4 parser, one small function per node kind, as data (ParserTree) that generated
 * modules print and code mode builds, so both judge a result alike. Checks whose JSON Schema
 * meaning differs from zod's built-ins (string length in code points, `multipleOf`, `integer`
 * beyond 2^53, formats) use the runtime's helpers, which follow Ajv exactly.
 */
export function emitParser(node: IRNode, options: ParserOptions): EmittedParser {
  const uses = noUses();
  const parser = parserOf(node, options, uses);
  return { parser, code: printParser(parser), uses };
}

function parserOf(node: IRNode, options: ParserOptions, uses: Uses): ParserTree {
  switch (node.kind) {
    case "unknown":
      return known("JsonValueSchema");
    case "never":
    case "null":
    case "boolean":
      return zod(node.kind);
    case "string":
      return stringParser(node);
    case "number":
      return numberParser(node);
    case "literals":
      return literalsParser(node.values);
    case "array":
      return withArrayChecks(zod("array", parserOf(node.items, options, uses)), node, true);
    case "tuple":
      return tupleParser(node, options, uses);
    case "object":
      return objectParser(node, options, uses);
    case "union": {
      const members = list(node.members.map((member) => parserOf(member, options, uses)));
      return isExactOneOf(node, options) ? helper("oneOf", members) : zod("union", members);
    }
    case "intersection": {
      const typed = node.members.filter((member) => member.kind !== "check");
      const checks = node.members.flatMap((member) => (member.kind === "check" ? [member.check] : []));
      const base =
        typed.length === 0
          ? known("JsonValueSchema")
          : typed.map((member) => parserOf(member, options, uses)).reduce((left, right) => helper("allOf", left, right));
      return checks.reduce((parser, check) => refinement(parser, check, options, uses), base);
    }
    case "ref":
      uses.refs.add(node.name);
      return { kind: "ref", name: node.name };
    case "check":
      return refinement(known("JsonValueSchema"), node.check, options, uses);
  }
}

/**
 * Lenient objects keep unknown keys, so closed branches would all match and "exactly one"
 * would reject what Ajv accepts; there `oneOf` is checked as `anyOf` (wider, never narrower).
 */
function isExactOneOf(node: Extract<IRNode, { kind: "union" }>, options: ParserOptions): boolean {
  return node.exactlyOne && (options.strictObjects || !node.members.some(mayBeClosedObject));
}

/** `.refine(check, message)`. */
function refined(parser: ParserTree, check: ParserTree, message: string): ParserTree {
  return method(parser, "refine", check, value(message));
}

function stringParser(node: StringNode): ParserTree {
  let parser = zod("string");
  if (node.minLength !== undefined)
    parser = refined(parser, helper("minCodePoints", value(node.minLength)), `at least ${count(node.minLength, "character")}`);
  if (node.maxLength !== undefined)
    parser = refined(parser, helper("maxCodePoints", value(node.maxLength)), `at most ${count(node.maxLength, "character")}`);
  // Matched in linear time: a server's pattern must not cost time exponential in a result's length.
  if (node.pattern !== undefined) parser = refined(parser, helper("matches", value(node.pattern)), `must match pattern ${node.pattern}`);
  if (node.format !== undefined) parser = refined(parser, helper("format", value(node.format)), `expected format ${node.format}`);
  return parser;
}

function numberParser(node: NumberNode): ParserTree {
  let parser = zod("number");
  if (node.integer) parser = refined(parser, known("Number.isInteger"), "expected an integer");
  if (node.minimum !== undefined) parser = method(parser, "gte", value(node.minimum));
  if (node.maximum !== undefined) parser = method(parser, "lte", value(node.maximum));
  if (node.exclusiveMinimum !== undefined) parser = method(parser, "gt", value(node.exclusiveMinimum));
  if (node.exclusiveMaximum !== undefined) parser = method(parser, "lt", value(node.exclusiveMaximum));
  if (node.multipleOf !== undefined)
    parser = refined(parser, helper("multipleOf", value(node.multipleOf)), `expected a multiple of ${node.multipleOf}`);
  if (node.format !== undefined) parser = refined(parser, helper("format", value(node.format)), `expected format ${node.format}`);
  return parser;
}

function literalsParser(values: JsonValue[]): ParserTree {
  const primitives = values.flatMap((item) => (item === null || typeof item !== "object" ? [item] : []));
  if (primitives.length === values.length) {
    return primitives.length === 1 ? zod("literal", value(primitives[0]!)) : zod("literal", list(primitives.map(value)));
  }
  // Objects and arrays compare by JSON equality, as Ajv's `const` and `enum` do.
  return {
    kind: "call",
    callee: { of: "z", name: "custom" },
    typeArgument: emitType({ kind: "literals", values }).code,
    args: [helper("isOneOfValues", { kind: "data", value: values })],
  };
}

function withArrayChecks(
  parser: ParserTree,
  node: { minItems?: number; maxItems?: number; uniqueItems?: boolean },
  native: boolean,
): ParserTree {
  let result = parser;
  if (native && node.minItems !== undefined) result = method(result, "min", value(node.minItems));
  if (native && node.maxItems !== undefined) result = method(result, "max", value(node.maxItems));
  if (!native && node.minItems !== undefined)
    result = refined(result, helper("minItems", value(node.minItems)), `at least ${count(node.minItems, "item")}`);
  if (!native && node.maxItems !== undefined)
    result = refined(result, helper("maxItems", value(node.maxItems)), `at most ${count(node.maxItems, "item")}`);
  if (node.uniqueItems) result = refined(result, known("uniqueItems"), "items must be unique");
  return result;
}

function tupleParser(node: TupleNode, options: ParserOptions, uses: Uses): ParserTree {
  const items = node.items.map((item, index) => {
    const parser = parserOf(item, options, uses);
    return index < node.required ? parser : method(parser, "exactOptional");
  });
  const rest = node.rest === null ? [] : [parserOf(node.rest, options, uses)];
  return withArrayChecks(zod("tuple", list(items), ...rest), node, false);
}

function objectParser(node: ObjectNode, options: ParserOptions, uses: Uses): ParserTree {
  const entries = node.properties.map((property): [string, ParserTree] => {
    const parser = parserOf(property.node, options, uses);
    return [property.name, property.required ? parser : method(parser, "exactOptional")];
  });
  const shape: ParserTree = { kind: "shape", entries };
  const keys = value(node.properties.map((property) => property.name));
  const patterns = node.patterns ?? [];
  const indexed = indexedValues(node);
  let parser: ParserTree;
  if (indexed.length === 0) {
    parser = zod(node.additional === false && options.strictObjects && patterns.length === 0 ? "strictObject" : "looseObject", shape);
  } else if (node.properties.length === 0 && patterns.length === 0) {
    parser = zod("record", zod("string"), parserOf(indexed[0]!, options, uses));
  } else {
    // The index signature's types, checked per key by otherKeysMatch below.
    const values = indexed.map((item) => parserOf(item, options, uses));
    const all = [...values, ...node.properties.map((property) => parserOf(property.node, options, uses))];
    const record = zod("record", zod("string"), zod("union", list(distinct(all))));
    parser = node.properties.length === 0 ? record : zod("intersection", zod("looseObject", shape), record);
  }
  // zod reads the prototype chain: a key named as one of Object.prototype's is read as own only by the runtime.
  if (node.properties.some((property) => property.name !== "__proto__" && property.name in Object.prototype))
    parser = helper("ownProperties", parser);
  if (patterns.length > 0 || (typeof node.additional === "object" && node.properties.length > 0)) {
    const matchers = patterns.map((pattern) => list([{ kind: "regex", source: pattern.pattern }, parserOf(pattern.node, options, uses)]));
    // Lenient parsers keep keys that `additionalProperties: false` forbids.
    const additional =
      typeof node.additional === "object"
        ? parserOf(node.additional, options, uses)
        : value(node.additional === true || options.strictObjects === false);
    parser = refined(
      parser,
      helper("otherKeysMatch", keys, { kind: "list", items: matchers, asConst: true }, additional),
      "a key does not match its pattern or additionalProperties",
    );
  }
  if (node.minProperties !== undefined || node.maxProperties !== undefined) {
    const bounds = helper("propertyCount", value(node.minProperties ?? 0), value(node.maxProperties ?? Infinity));
    parser = refined(parser, bounds, "wrong number of properties");
  }
  // zod neither checks nor keeps a `__proto__` key; the runtime does both.
  const proto = node.properties.find((property) => property.name === "__proto__");
  if (proto !== undefined) parser = helper("protoProperty", parser, parserOf(proto.node, options, uses), value(proto.required));
  return parser;
}

/** Parsers that print alike are one union member. */
function distinct(parsers: ParserTree[]): ParserTree[] {
  const seen = new Set<string>();
  return parsers.filter((parser) => {
    const text = printParser(parser);
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}

/**
 * A run-time check as a `.refine`. Lenient parsers accept more than their closed objects
 * allow, so a check that needs an inner parser to reject (`not`, `if`, `maxContains`) is
 * left out there when that parser may hold a closed object: wider, never narrower.
 */
function refinement(base: ParserTree, check: Check, options: ParserOptions, uses: Uses): ParserTree {
  const parser = (node: IRNode) => parserOf(node, options, uses);
  const loose = (node: IRNode) => !options.strictObjects && holdsClosedObject(node);
  switch (check.kind) {
    case "not":
      return loose(check.node) ? base : refined(base, helper("not", parser(check.node)), "must not match the schema in not");
    case "conditional":
      return loose(check.condition)
        ? base
        : refined(
            base,
            helper("conditional", parser(check.condition), parser(check.onValid), parser(check.onInvalid)),
            "must match then or else by if",
          );
    case "contains":
      if (check.max !== undefined && loose(check.node)) return base;
      return refined(
        base,
        helper("contains", parser(check.node), value(check.min), value(check.max ?? Infinity)),
        "wrong number of items match contains",
      );
    case "dependentRequired":
      return refined(base, helper("dependentRequired", value(check.key), value(check.required)), `${check.key} requires other keys`);
    case "dependentSchema":
      return refined(
        base,
        helper("dependentSchema", value(check.key), parser(check.node)),
        `${check.key} requires the object to match its schema`,
      );
    case "propertyNames":
      return refined(base, helper("propertyNames", parser(check.node)), "a key does not match propertyNames");
    case "unevaluatedProperties":
      if (check.node.kind === "never" && !options.strictObjects) return base;
      return refined(base, unevaluated(check, parser), "a key no other keyword evaluated is not allowed");
    case "unevaluatedItems":
      return refined(base, unevaluated(check, parser), "an item no other keyword evaluated is not allowed");
  }
}

/** `rt.unevaluatedProperties(evaluation, schema)` or its items twin; `false` when nothing more is allowed. */
function unevaluated(
  check: Extract<Check, { kind: "unevaluatedProperties" | "unevaluatedItems" }>,
  parser: (node: IRNode) => ParserTree,
): ParserTree {
  return helper(check.kind, evaluationCode(check.evaluated, parser), check.node.kind === "never" ? value(false) : parser(check.node));
}

function evaluationCode(evaluation: Evaluation, parser: (node: IRNode) => ParserTree): ParserTree {
  return {
    kind: "fields",
    entries: [
      ["properties", value(evaluation.properties)],
      ["patterns", list(evaluation.patterns.map((source) => ({ kind: "regex", source })))],
      ["items", value(evaluation.items)],
      ["allProperties", value(evaluation.allProperties)],
      ["allItems", value(evaluation.allItems)],
      ["branches", list(evaluation.branches.map((branch) => branchCode(branch, parser)))],
    ],
  };
}

function branchCode(branch: EvaluationBranch, parser: (node: IRNode) => ParserTree): ParserTree {
  const { when } = branch;
  const condition: ["when" | "key" | "schema", ParserTree][] =
    when.kind === "always"
      ? [["when", value("always")]]
      : when.kind === "hasKey"
        ? [
            ["when", value("hasKey")],
            ["key", value(when.key)],
          ]
        : [
            ["when", value(when.kind)],
            ["schema", parser(when.node)],
          ];
  return { kind: "fields", entries: [...condition, ["evaluated", evaluationCode(branch.evaluated, parser)]] };
}
/** Whether a parser may hold an object with `additionalProperties: false` anywhere inside (refs and checks: assumed). */
function holdsClosedObject(node: IRNode): boolean {
  switch (node.kind) {
    case "object":
      return (
        node.additional === false ||
        (typeof node.additional === "object" && holdsClosedObject(node.additional)) ||
        node.properties.some((property) => holdsClosedObject(property.node)) ||
        (node.patterns ?? []).some((pattern) => holdsClosedObject(pattern.node))
      );
    case "array":
      return holdsClosedObject(node.items);
    case "tuple":
      return node.items.some(holdsClosedObject) || (node.rest !== null && holdsClosedObject(node.rest));
    case "union":
    case "intersection":
      return node.members.some(holdsClosedObject);
    case "ref":
    case "check":
      return true;
    default:
      return false;
  }
}

/** Whether a union member could be an object with `additionalProperties: false` (refs are not looked into). */
function mayBeClosedObject(node: IRNode): boolean {
  if (node.kind === "object") return node.additional === false;
  if (node.kind === "ref") return true;
  if (node.kind === "intersection" || node.kind === "union") return node.members.some(mayBeClosedObject);
  return false;
}
