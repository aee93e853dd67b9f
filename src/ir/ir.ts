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
  | { kind: "ref"; name: string };

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
}

/** A named, hoisted schema (a `$ref` target): emitted once per module, referenced by name. */
export interface NamedDefinition {
  name: string;
  node: IRNode;
  /** Where the definition sits in the schema it was first reached from, e.g. `/$defs/Node`. */
  pointer: string;
  description?: string;
}
