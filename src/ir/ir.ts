/**
 * The generator's type IR: one node per JSON Schema sub-part, built once from a
 * (local-$ref-resolved) schema. Both the TypeScript emitter and the Zod emitter read
 * only this, so the declared type and the runtime parser cannot disagree.
 */
export type IRNode =
  | { kind: "unknown" }
  | { kind: "never" }
  | { kind: "null" }
  | { kind: "boolean" }
  | StringNode
  | NumberNode
  | { kind: "literals"; values: JsonValue[] }
  | ArrayNode
  | TupleNode
  | ObjectNode
  | { kind: "union"; members: IRNode[]; exactlyOne: boolean }
  | { kind: "intersection"; members: IRNode[] }
  | { kind: "ref"; name: string }
  | { kind: "check"; check: Check };

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface StringNode {
  kind: "string";
  minLength?: number;
  maxLength?: number;
  /** ECMA-262 source, checked to compile with the `u` flag as Ajv does. */
  pattern?: string;
  format?: string;
}

export interface NumberNode {
  kind: "number";
  integer: boolean;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  /** Numeric formats (`int32`, `int64`, `float`, `double`) are checked as Ajv does. */
  format?: string;
}

export interface ArrayNode {
  kind: "array";
  items: IRNode;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
}

/** `prefixItems` (2020-12) or `items: [...]` (draft-07): the first `required` entries must be present. */
export interface TupleNode {
  kind: "tuple";
  items: IRNode[];
  required: number;
  /** Items after the prefix; `null` when none are allowed. */
  rest: IRNode | null;
  minItems?: number;
  maxItems?: number;
  uniqueItems?: boolean;
}

export interface PropertyNode {
  name: string;
  node: IRNode;
  required: boolean;
  description?: string;
}

export interface ObjectNode {
  kind: "object";
  properties: PropertyNode[];
  /** `false`: no other keys; an IR node: other keys' values; `true`: anything (absent or `true` in the schema). */
  additional: IRNode | boolean;
  minProperties?: number;
  maxProperties?: number;
  /**
   * `patternProperties`: a key matching a pattern must fit its node, and is then not subject to
   * `additional` (which covers only keys matched neither by `properties` nor by any pattern).
   */
  patterns?: PatternNode[];
}

export interface PatternNode {
  /** ECMA-262 source, checked to compile with the `u` flag as Ajv does. */
  pattern: string;
  node: IRNode;
}

/**
 * A keyword checked only at run time: it narrows no static type, so emitters type it as
 * the other members of its intersection (alone, as any JSON). Each check constrains only
 * instances of its own JSON type (objects for key checks, arrays for `contains`); others pass.
 */
export type Check =
  | { kind: "not"; node: IRNode }
  /** `if` (`condition`), `then` (`onValid`), `else` (`onInvalid`); one absent in the schema is `unknown` here. */
  | { kind: "conditional"; condition: IRNode; onValid: IRNode; onInvalid: IRNode }
  /** Draft-07 `contains` is `min: 1`; 2020-12 adds `minContains`/`maxContains`. */
  | { kind: "contains"; node: IRNode; min: number; max?: number }
  /** `dependentRequired` (or draft-07 `dependencies` with a list): `key` present → `required` present. */
  | { kind: "dependentRequired"; key: string; required: string[] }
  /** `dependentSchemas` (or draft-07 `dependencies` with a schema): `key` present → the object fits `node`. */
  | { kind: "dependentSchema"; key: string; node: IRNode }
  /** Every key, as a string instance, fits `node`. */
  | { kind: "propertyNames"; node: IRNode }
  /** Keys (items) the schema's other keywords did not evaluate must fit `node`. */
  | { kind: "unevaluatedProperties"; node: IRNode; evaluated: Evaluation }
  | { kind: "unevaluatedItems"; node: IRNode; evaluated: Evaluation };

/**
 * What a schema evaluates of one instance, by 2020-12 annotation rules as Ajv implements
 * them: known statically (names, patterns, leading items) or only once in-place applicators
 * have run (an `anyOf` branch counts only when it validates).
 */
export interface Evaluation {
  /** Keys named by `properties` (evaluated when present). */
  properties: string[];
  /** `patternProperties` sources: keys matching one are evaluated. */
  patterns: string[];
  /** Items from index 0 evaluated by `prefixItems` (or draft-07 array `items`). */
  items: number;
  /** Every key (`additionalProperties`, a nested `unevaluatedProperties`). */
  allProperties: boolean;
  /** Every item (`items` after the prefix, `contains`, a nested `unevaluatedItems`). */
  allItems: boolean;
  /** In-place applicators whose evaluation counts only under a condition on the instance. */
  branches: EvaluationBranch[];
}

export interface EvaluationBranch {
  /**
   * `valid`: the instance fits `node` (anyOf/oneOf branches, `then`, `else` by `if`'s verdict);
   * `invalid`: it does not; `hasKey`: the object has `key` (`dependentSchemas`); `always`: allOf, $ref.
   */
  when: { kind: "always" } | { kind: "valid"; node: IRNode } | { kind: "invalid"; node: IRNode } | { kind: "hasKey"; key: string };
  evaluated: Evaluation;
}

/** A named, hoisted schema (a `$ref` target): emitted once per module, referenced by name. */
export interface NamedDefinition {
  name: string;
  node: IRNode;
  /** Where the definition sits in the schema it was first reached from, e.g. `/$defs/Node`. */
  pointer: string;
  description?: string;
}
