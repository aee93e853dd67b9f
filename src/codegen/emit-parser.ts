import { count } from "../count.js";
import type { Check, Evaluation, EvaluationBranch, IRNode, JsonValue, NumberNode, ObjectNode, StringNode, TupleNode } from "../ir/ir.js";
import { literal, valueKey } from "./code.js";
import { emitType, indexedValues, RUNTIME } from "./emit-type.js";
import { type Emitted, noUses, type Uses } from "./uses.js";

export interface ParserOptions {
  /** Reject keys that `additionalProperties: false` forbids; by default they are kept (lenient). */
  strictObjects: boolean;
}

/**
 * IR → Zod 4 expression, one small function per node kind. Checks whose JSON Schema
 * meaning differs from zod's built-ins (string length in code points, `multipleOf`,
 * `integer` beyond 2^53, formats) use the runtime's helpers, which follow Ajv exactly.
 */
export function emitParser(node: IRNode, options: ParserOptions): Emitted {
  const uses = noUses();
  return { code: parserOf(node, options, "", uses), uses };
}

function parserOf(node: IRNode, options: ParserOptions, indent: string, uses: Uses): string {
  if (callsZod(node, options)) uses.zod = true;
  switch (node.kind) {
    case "unknown":
      return `${RUNTIME}.JsonValueSchema`;
    case "never":
      return "z.never()";
    case "null":
      return "z.null()";
    case "boolean":
      return "z.boolean()";
    case "string":
      return stringParser(node);
    case "number":
      return numberParser(node);
    case "literals":
      return literalsParser(node.values);
    case "array":
      return withArrayChecks(`z.array(${parserOf(node.items, options, indent, uses)})`, node, true);
    case "tuple":
      return tupleParser(node, options, indent, uses);
    case "object":
      return objectParser(node, options, indent, uses);
    case "union": {
      const members = node.members.map((member) => parserOf(member, options, indent, uses));
      return isExactOneOf(node, options) ? `${RUNTIME}.oneOf([${members.join(", ")}])` : `z.union([${members.join(", ")}])`;
    }
    case "intersection": {
      const typed = node.members.filter((member) => member.kind !== "check");
      const checks = node.members.flatMap((member) => (member.kind === "check" ? [member.check] : []));
      const base =
        typed.length === 0
          ? `${RUNTIME}.JsonValueSchema`
          : typed.map((member) => parserOf(member, options, indent, uses)).reduce((left, right) => `${RUNTIME}.allOf(${left}, ${right})`);
      return checks.reduce((code, check) => code + refinement(check, options, indent, uses), base);
    }
    case "ref":
      uses.refs.add(node.name);
      return `${node.name}Schema`;
    case "check":
      return `${RUNTIME}.JsonValueSchema${refinement(node.check, options, indent, uses)}`;
  }
}

/** Whether the parser for this node itself (not its members) is a zod call. */
function callsZod(node: IRNode, options: ParserOptions): boolean {
  if (["unknown", "ref", "check", "intersection"].includes(node.kind)) return false;
  if (node.kind === "union") return !isExactOneOf(node, options);
  return true;
}

/**
 * Lenient objects keep unknown keys, so closed branches would all match and "exactly one"
 * would reject what Ajv accepts; there `oneOf` is checked as `anyOf` (wider, never narrower).
 */
function isExactOneOf(node: Extract<IRNode, { kind: "union" }>, options: ParserOptions): boolean {
  return node.exactlyOne && (options.strictObjects || !node.members.some(mayBeClosedObject));
}

function stringParser(node: StringNode): string {
  let code = "z.string()";
  if (node.minLength !== undefined)
    code += `.refine(${RUNTIME}.minCodePoints(${node.minLength}), ${literal(`at least ${count(node.minLength, "character")}`)})`;
  if (node.maxLength !== undefined)
    code += `.refine(${RUNTIME}.maxCodePoints(${node.maxLength}), ${literal(`at most ${count(node.maxLength, "character")}`)})`;
  if (node.pattern !== undefined) code += `.regex(new RegExp(${literal(node.pattern)}, "u"))`;
  if (node.format !== undefined)
    code += `.refine(${RUNTIME}.format(${literal(node.format)}), ${literal(`expected format ${node.format}`)})`;
  return code;
}

function numberParser(node: NumberNode): string {
  let code = "z.number()";
  if (node.integer) code += `.refine(Number.isInteger, "expected an integer")`;
  if (node.minimum !== undefined) code += `.gte(${literal(node.minimum)})`;
  if (node.maximum !== undefined) code += `.lte(${literal(node.maximum)})`;
  if (node.exclusiveMinimum !== undefined) code += `.gt(${literal(node.exclusiveMinimum)})`;
  if (node.exclusiveMaximum !== undefined) code += `.lt(${literal(node.exclusiveMaximum)})`;
  if (node.multipleOf !== undefined)
    code += `.refine(${RUNTIME}.multipleOf(${literal(node.multipleOf)}), ${literal(`expected a multiple of ${node.multipleOf}`)})`;
  if (node.format !== undefined)
    code += `.refine(${RUNTIME}.format(${literal(node.format)}), ${literal(`expected format ${node.format}`)})`;
  return code;
}

function literalsParser(values: JsonValue[]): string {
  if (values.every((value) => value === null || typeof value !== "object")) {
    return values.length === 1 ? `z.literal(${literal(values[0])})` : `z.literal([${values.map(literal).join(", ")}])`;
  }
  // Objects and arrays compare by JSON equality, as Ajv's `const` and `enum` do. They are
  // rebuilt with JSON.parse: in an object literal a "__proto__" key would set the prototype.
  return `z.custom<${emitType({ kind: "literals", values }).code}>(${RUNTIME}.isOneOfValues(JSON.parse(${literal(JSON.stringify(values))})))`;
}

function withArrayChecks(code: string, node: { minItems?: number; maxItems?: number; uniqueItems?: boolean }, native: boolean): string {
  let result = code;
  if (native && node.minItems !== undefined) result += `.min(${node.minItems})`;
  if (native && node.maxItems !== undefined) result += `.max(${node.maxItems})`;
  if (!native && node.minItems !== undefined)
    result += `.refine((items) => items.length >= ${node.minItems}, ${literal(`at least ${count(node.minItems, "item")}`)})`;
  if (!native && node.maxItems !== undefined)
    result += `.refine((items) => items.length <= ${node.maxItems}, ${literal(`at most ${count(node.maxItems, "item")}`)})`;
  if (node.uniqueItems) result += `.refine(${RUNTIME}.uniqueItems, "items must be unique")`;
  return result;
}

function tupleParser(node: TupleNode, options: ParserOptions, indent: string, uses: Uses): string {
  const items = node.items.map((item, index) => {
    const parser = parserOf(item, options, indent, uses);
    return index < node.required ? parser : `${parser}.exactOptional()`;
  });
  const rest = node.rest === null ? "" : `, ${parserOf(node.rest, options, indent, uses)}`;
  return withArrayChecks(`z.tuple([${items.join(", ")}]${rest})`, node, false);
}

function objectParser(node: ObjectNode, options: ParserOptions, indent: string, uses: Uses): string {
  const inner = `${indent}  `;
  const entries = node.properties.map((property) => {
    const parser = parserOf(property.node, options, inner, uses);
    return `${inner}${valueKey(property.name)}: ${property.required ? parser : `${parser}.exactOptional()`},\n`;
  });
  const shape = entries.length === 0 ? "{}" : `{\n${entries.join("")}${indent}}`;
  const keys = literal(node.properties.map((property) => property.name));
  const patterns = node.patterns ?? [];
  const indexed = indexedValues(node);
  let code: string;
  if (indexed.length === 0) {
    code = `${node.additional === false && options.strictObjects && patterns.length === 0 ? "z.strictObject" : "z.looseObject"}(${shape})`;
  } else if (node.properties.length === 0 && patterns.length === 0) {
    code = `z.record(z.string(), ${parserOf(indexed[0]!, options, indent, uses)})`;
  } else {
    // The index signature's types, checked per key by otherKeysMatch below.
    const values = indexed.map((value) => parserOf(value, options, indent, uses));
    const all = [...values, ...node.properties.map((property) => parserOf(property.node, options, inner, uses))];
    const record = `z.record(z.string(), z.union([${[...new Set(all)].join(", ")}]))`;
    code = node.properties.length === 0 ? record : `z.intersection(z.looseObject(${shape}), ${record})`;
  }
  if (patterns.length > 0 || (typeof node.additional === "object" && node.properties.length > 0)) {
    const matchers = patterns.map(
      (pattern) => `[new RegExp(${literal(pattern.pattern)}, "u"), ${parserOf(pattern.node, options, inner, uses)}]`,
    );
    // Lenient parsers keep keys that `additionalProperties: false` forbids.
    const additional =
      typeof node.additional === "object"
        ? parserOf(node.additional, options, indent, uses)
        : String(node.additional === true || options.strictObjects === false);
    code += `.refine(${RUNTIME}.otherKeysMatch(${keys}, [${matchers.join(", ")}] as const, ${additional}), "a key does not match its pattern or additionalProperties")`;
  }
  if (node.minProperties !== undefined || node.maxProperties !== undefined) {
    code += `.refine(${RUNTIME}.propertyCount(${node.minProperties ?? 0}, ${node.maxProperties ?? "Infinity"}), "wrong number of properties")`;
  }
  // zod neither checks nor keeps a `__proto__` key; the runtime does both.
  const proto = node.properties.find((property) => property.name === "__proto__");
  if (proto !== undefined) code = `${RUNTIME}.protoProperty(${code}, ${parserOf(proto.node, options, inner, uses)}, ${proto.required})`;
  return code;
}

/**
 * A run-time check as a `.refine`. Lenient parsers accept more than their closed objects
 * allow, so a check that needs an inner parser to reject (`not`, `if`, `maxContains`) is
 * left out there when that parser may hold a closed object: wider, never narrower.
 */
function refinement(check: Check, options: ParserOptions, indent: string, uses: Uses): string {
  const parser = (node: IRNode) => parserOf(node, options, indent, uses);
  const loose = (node: IRNode) => !options.strictObjects && holdsClosedObject(node);
  const refine = (call: string, message: string) => `.refine(${RUNTIME}.${call}, ${literal(message)})`;
  switch (check.kind) {
    case "not":
      return loose(check.node) ? "" : refine(`not(${parser(check.node)})`, "must not match the schema in not");
    case "conditional":
      return loose(check.condition)
        ? ""
        : refine(
            `conditional(${parser(check.condition)}, ${parser(check.onValid)}, ${parser(check.onInvalid)})`,
            "must match then or else by if",
          );
    case "contains":
      if (check.max !== undefined && loose(check.node)) return "";
      return refine(`contains(${parser(check.node)}, ${check.min}, ${check.max ?? "Infinity"})`, "wrong number of items match contains");
    case "dependentRequired":
      return refine(`dependentRequired(${literal(check.key)}, ${literal(check.required)})`, `${check.key} requires other keys`);
    case "dependentSchema":
      return refine(
        `dependentSchema(${literal(check.key)}, ${parser(check.node)})`,
        `${check.key} requires the object to match its schema`,
      );
    case "propertyNames":
      return refine(`propertyNames(${parser(check.node)})`, "a key does not match propertyNames");
    case "unevaluatedProperties":
      if (check.node.kind === "never" && !options.strictObjects) return "";
      return refine(
        `unevaluatedProperties(${evaluationCode(check.evaluated, parser)}, ${check.node.kind === "never" ? "false" : parser(check.node)})`,
        "a key no other keyword evaluated is not allowed",
      );
    case "unevaluatedItems":
      return refine(
        `unevaluatedItems(${evaluationCode(check.evaluated, parser)}, ${check.node.kind === "never" ? "false" : parser(check.node)})`,
        "an item no other keyword evaluated is not allowed",
      );
  }
}

function evaluationCode(evaluation: Evaluation, parser: (node: IRNode) => string): string {
  const patterns = evaluation.patterns.map((pattern) => `new RegExp(${literal(pattern)}, "u")`);
  const branches = evaluation.branches.map(
    (branch) => `{ ${branchCondition(branch, parser)}, evaluated: ${evaluationCode(branch.evaluated, parser)} }`,
  );
  return `{ properties: ${literal(evaluation.properties)}, patterns: [${patterns.join(", ")}], items: ${evaluation.items}, allProperties: ${evaluation.allProperties}, allItems: ${evaluation.allItems}, branches: [${branches.join(", ")}] }`;
}

function branchCondition(branch: EvaluationBranch, parser: (node: IRNode) => string): string {
  const { when } = branch;
  if (when.kind === "always") return `when: "always"`;
  if (when.kind === "hasKey") return `when: "hasKey", key: ${literal(when.key)}`;
  return `when: ${literal(when.kind)}, schema: ${parser(when.node)}`;
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
