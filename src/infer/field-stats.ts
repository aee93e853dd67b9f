import { jsonTypeOf } from "@pmcp-codegen/runtime/internal/json";
import { escapePointer, isObject } from "../json-schema/pointer.js";
import { followRefs } from "../json-schema/refs.js";

/** How one field of an inferred result behaved across the observations. */
export interface FieldStats {
  /** JSON pointer into the result; `*` stands for every array item or map value. */
  path: string;
  /** Share of the observed parent objects that had this key (absent for items and map values). */
  presence?: number;
  /** JSON types seen, with how often: `integer` is told apart from `number`. */
  types: Record<string, number>;
}

/** Fields deeper than this, or beyond this many, are not followed: recursive data would never end. */
const MAX_DEPTH = 16;
const MAX_FIELDS = 1000;

/**
 * One field, made once from the schema so that walking ten thousand values builds no
 * strings. Children are made on first use, which is what keeps recursive schemas finite.
 */
class Field {
  present = 0;
  of = 0;
  keyed = false;
  readonly types = new Map<string, number>();
  #properties: Map<string, Field | undefined> | undefined;
  #items: Field | undefined | null = null;
  #additional: Field | undefined | null = null;

  constructor(
    readonly path: string,
    readonly depth: number,
    private readonly schema: unknown,
    private readonly fields: Field[],
    private readonly root: Record<string, unknown>,
  ) {}

  note(value: unknown): void {
    const type = jsonTypeOf(value, { integers: true });
    this.types.set(type, (this.types.get(type) ?? 0) + 1);
  }

  /** The schema node for a value here: `$ref` followed, and the `anyOf` member of the value's kind. */
  #node(kind: "object" | "array"): Record<string, unknown> | undefined {
    const follow = (schema: unknown): Record<string, unknown> | undefined => {
      const node = followRefs(this.root, schema);
      if (!isObject(node)) return undefined;
      if (Array.isArray(node.anyOf)) return node.anyOf.map(follow).find((member) => member?.type === kind);
      return node;
    };
    return follow(this.schema);
  }

  property(name: string): Field | undefined {
    this.#properties ??= new Map(Object.keys(propertiesOf(this.#node("object"))).map((key) => [key, undefined]));
    if (!this.#properties.has(name)) return undefined;
    let field = this.#properties.get(name);
    if (field === undefined) {
      field = this.#child(`${this.path}/${escapePointer(name)}`, propertiesOf(this.#node("object"))[name]);
      if (field !== undefined) field.keyed = true;
      this.#properties.set(name, field);
    }
    return field;
  }

  propertyNames(): string[] {
    this.#properties ??= new Map(Object.keys(propertiesOf(this.#node("object"))).map((key) => [key, undefined]));
    return [...this.#properties.keys()];
  }

  items(): Field | undefined {
    if (this.#items === null) this.#items = this.#child(`${this.path}/*`, this.#node("array")?.items);
    return this.#items;
  }

  additional(): Field | undefined {
    if (this.#additional === null) {
      const schema = this.#node("object")?.additionalProperties;
      this.#additional = isObject(schema) ? this.#child(`${this.path}/*`, schema) : undefined;
    }
    return this.#additional;
  }

  #child(path: string, schema: unknown): Field | undefined {
    if (this.depth >= MAX_DEPTH || this.fields.length >= MAX_FIELDS) return undefined;
    const field = new Field(path, this.depth + 1, schema, this.fields, this.root);
    this.fields.push(field);
    return field;
  }
}

function propertiesOf(node: Record<string, unknown> | undefined): Record<string, unknown> {
  return node !== undefined && isObject(node.properties) ? node.properties : {};
}

/** Per-field presence and types, walking each value along the inferred schema. */
export function fieldStats(schema: Record<string, unknown>, values: readonly unknown[]): FieldStats[] {
  const fields: Field[] = [];
  const root = new Field("", 0, schema, fields, schema);
  fields.push(root);
  for (const value of values) walk(root, value);
  return fields
    .filter((field) => field.types.size > 0 || field.of > 0)
    .map(
      (field): FieldStats => ({
        path: field.path,
        ...(field.keyed ? { presence: Math.round((field.present / field.of) * 1000) / 1000 } : {}),
        types: Object.fromEntries([...field.types].sort(([a], [b]) => (a < b ? -1 : 1))),
      }),
    )
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function walk(field: Field, value: unknown): void {
  field.note(value);
  if (Array.isArray(value)) {
    const items = field.items();
    if (items !== undefined) for (const item of value) walk(items, item);
    return;
  }
  if (!isObject(value)) return;
  for (const name of field.propertyNames()) {
    const child = field.property(name);
    if (child === undefined) continue;
    child.of += 1;
    if (Object.hasOwn(value, name)) {
      child.present += 1;
      walk(child, value[name]);
    }
  }
  const additional = field.additional();
  if (additional === undefined) return;
  for (const [name, item] of Object.entries(value)) if (field.property(name) === undefined) walk(additional, item);
}
