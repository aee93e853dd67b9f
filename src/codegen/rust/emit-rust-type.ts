import type { ArrayNode, IRNode, JsonValue, NamedDefinition, NumberNode, ObjectNode, StringNode, TupleNode } from "../../ir/ir.js";
import { NameScope, pascalCase } from "../../ir/naming.js";
import { rustDoc } from "./rust-doc.js";
import { rustString } from "./rust-literal.js";
import { rustFieldName, rustTypeName } from "./rust-names.js";

/** A Rust type for an IR node, with what serde will not check of it. */
interface RustType {
  code: string;
  /** The type holds JSON `null` itself (`Option`, `()`, `serde_json::Value`). */
  holdsNull: boolean;
  /** The type is an `Option` made for a nullable schema: required, it must not default to `None` when absent. */
  option: boolean;
  /** Doc lines: bounds, patterns and whatever else the type does not enforce. */
  notes: string[];
}

/** The name a hoisted struct or enum gets: `exact` for a declared item, else free in the module's scope. */
interface Hint {
  name: string;
  exact: boolean;
}

const VALUE = "serde_json::Value";
const JSON_MAP = "serde_json::Map<String, serde_json::Value>";
const DERIVE = "#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]\n";
const DERIVE_EMPTY_STRUCT = "#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]\n";
const DERIVE_UNIT_ENUM = "#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]\n";
/** The serde helper in `mod.rs` that tells an absent field (`None`) from a null one (`Some(null)`). */
const PRESENT = "super::present";
/**
 * The most properties an object is a struct of. serde's derive of a struct of about 6,000 fields
 * overflows rustc's stack (3,000 build); past this an object is a map, with a note and a warning.
 */
export const MAX_STRUCT_FIELDS = 2_000;

/**
 * IR → Rust items for one module: structs for objects, enums for string enums and unions (tagged
 * by a discriminating property when every member has one), tuples, maps, `Box` for references
 * within a cycle, and `serde_json::Value` where the schema allows anything or Rust cannot type it,
 * with a doc note. Names of hoisted items come from `scope`, which the IR builder shares.
 */
export class RustItems {
  /** Every item so far, by name, in the order made. */
  private readonly items = new Map<string, string>();
  private readonly definitions: Map<string, NamedDefinition>;
  /** Definitions that reach themselves. */
  private readonly cyclic: Set<string>;
  /** Per definition, the definitions it refers to, directly or not. */
  private readonly reach: Map<string, Set<string>>;
  /** The definition being declared: a reference back to it, not behind a `Vec` or map, is boxed. */
  private owner: string | undefined;
  /**
   * Whether the types being declared are read from JSON (results, definitions), and must then hold
   * exactly what they read; arguments are only written, from values the caller builds.
   */
  private read = true;
  /** Helper types made once per module when first needed, by the name they asked for. */
  private readonly helpers = new Map<string, string>();
  /** What Rust could not type as the schema says, since the caller last took them (takeWarnings). */
  private warnings: string[] = [];

  constructor(
    private readonly scope: NameScope,
    definitions: readonly NamedDefinition[],
  ) {
    this.definitions = new Map(definitions.map((definition) => [definition.name, definition]));
    this.reach = reachable(this.definitions);
    this.cyclic = new Set([...this.reach].filter(([name, reached]) => reached.has(name)).map(([name]) => name));
  }

  /** Declares `name` (already claimed) as the type of `node`: a struct or enum when it is one, else an alias. */
  declare(name: string, node: IRNode, doc: readonly string[]): void {
    this.owner = this.definitions.has(name) ? name : undefined;
    const type = this.typeOf(node, { name, exact: true }, true);
    const lines = [...doc, ...(doc.length > 0 && type.notes.length > 0 ? [""] : []), ...type.notes];
    const made = this.items.get(name);
    // An alias cannot refer to itself: a type within a cycle is a newtype, which serde reads and writes as what it wraps.
    const body =
      made ?? (this.cyclic.has(name) ? `${DERIVE}pub struct ${name}(pub ${type.code});\n` : `pub type ${name} = ${type.code};\n`);
    this.items.set(name, `${rustDoc(lines.join("\n"))}${body}`);
  }

  /** Declares the arguments type of a tool: the caller builds it, so it has no fields for keys it does not name. */
  declareArgs(name: string, node: IRNode, doc: readonly string[]): void {
    this.read = false;
    this.declare(name, node, doc);
    this.read = true;
  }

  /** The warnings of the declarations since the last call, each naming the type. */
  takeWarnings(): string[] {
    const taken = this.warnings;
    this.warnings = [];
    return taken;
  }

  /** The items, one blank line apart. */
  code(): string {
    return [...this.items.values()].join("\n");
  }

  /** A definition, by the name the IR gave it. */
  declareDefinition(definition: NamedDefinition): void {
    this.declare(definition.name, definition.node, definition.description ? [definition.description] : []);
  }

  /** `direct`: the value sits inline (a field, a variant, a tuple item), not behind a `Vec` or map. */
  private typeOf(node: IRNode, hint: Hint, direct: boolean): RustType {
    switch (node.kind) {
      case "unknown":
        return nullable(VALUE, []);
      case "never":
        return plain(this.once("NoValue", DERIVE_UNIT_ENUM, "pub enum", "No JSON value reads as this type: the schema admits none."), [
          "The schema admits no value.",
        ]);
      case "null":
        return nullable("()", []);
      case "boolean":
        return plain("bool");
      case "string":
        return plain("String", stringNotes(node));
      case "number":
        return plain(node.integer ? "i64" : "f64", numberNotes(node));
      case "literals":
        return this.literalsType(node.values, hint);
      case "array":
        return plain(`Vec<${this.typeOf(node.items, child(hint, "Item"), false).code}>`, arrayNotes(node));
      case "tuple":
        return this.tupleType(node, hint);
      case "object":
        return this.objectType(node, hint);
      case "union":
        return this.unionType(node.members, node.exactlyOne, hint, direct);
      case "intersection": {
        const typed = node.members.filter((member) => member.kind !== "check");
        const checked = node.members.length - typed.length;
        const note = checked > 0 ? [`The schema's ${checkNames(node.members)} (not checked by serde).`] : [];
        if (typed.length === 1) {
          const type = this.typeOf(typed[0]!, hint, direct);
          return { ...type, notes: [...type.notes, ...note] };
        }
        if (typed.length === 0) return nullable(VALUE, note);
        return nullable(VALUE, ["Any JSON here: the schema requires a value to fit several schemas at once, which Rust cannot type."]);
      }
      case "ref": {
        const definition = this.definitions.get(node.name);
        const { owner } = this;
        const boxed = direct && owner !== undefined && (node.name === owner || this.reach.get(node.name)?.has(owner) === true);
        return {
          code: boxed ? `Box<${node.name}>` : node.name,
          holdsNull: definition !== undefined && acceptsNull(definition.node, this.definitions),
          option: false,
          notes: [],
        };
      }
      case "check":
        return nullable(VALUE, [`Any JSON here, as far as serde checks; the schema's ${checkNames([node])} is not checked.`]);
    }
  }

  private hoist(hint: Hint): string {
    return hint.exact ? hint.name : this.scope.claim(hint.name).name;
  }

  private literalsType(values: readonly JsonValue[], hint: Hint): RustType {
    const present = values.filter((value) => value !== null);
    const withNull = present.length < values.length;
    const inner = this.presentLiterals(present, withNull ? child(hint, "Value") : hint);
    if (!withNull || inner.holdsNull) return inner;
    return { code: `Option<${inner.code}>`, holdsNull: true, option: true, notes: inner.notes };
  }

  /** String values are an enum; numbers or booleans their type, with the values in a note; a mix of kinds any JSON. */
  private presentLiterals(values: readonly JsonValue[], hint: Hint): RustType {
    if (values.length === 0) return nullable("()", []);
    if (values.every((value) => typeof value === "string")) return plain(this.stringEnum(values as string[], hint));
    const note = [`One of: ${values.map((value) => JSON.stringify(value)).join(", ")} (not checked by serde).`];
    if (values.every((value) => typeof value === "boolean")) return plain("bool", note);
    if (values.every((value) => Number.isInteger(value))) return plain("i64", note);
    if (values.every((value) => typeof value === "number")) return plain("f64", note);
    return nullable(VALUE, note);
  }

  private stringEnum(values: readonly string[], hint: Hint): string {
    const name = this.hoist(hint);
    const variants = new NameScope(["Self"]);
    // A value twice would be a second match arm serde can never reach.
    const lines = [...new Set(values)].map((value) => {
      const variant = variants.claim(rustTypeName(value, "Value")).name;
      return `    #[serde(rename = ${rustString(value)})]\n    ${variant},\n`;
    });
    this.items.set(name, `${DERIVE_UNIT_ENUM}pub enum ${name} {\n${lines.join("")}}\n`);
    return name;
  }

  private tupleType(node: TupleNode, hint: Hint): RustType {
    const exact = node.rest === null && node.required === node.items.length && node.items.length > 0;
    if (!exact)
      return plain(`Vec<${VALUE}>`, [
        "An array whose items Rust cannot type by position (optional items or more after them).",
        ...arrayNotes(node),
      ]);
    const items = node.items.map((item, index) => this.typeOf(item, child(hint, `${index}`), true).code);
    return plain(
      `(${items.join(", ")}${items.length === 1 ? "," : ""})`,
      node.uniqueItems ? ["Items are unique (not checked by serde)."] : [],
    );
  }

  private objectType(node: ObjectNode, hint: Hint): RustType {
    const patterns = node.patterns ?? [];
    const notes = [...propertyCountNotes(node), ...patternNotes(node)];
    if (node.properties.length > MAX_STRUCT_FIELDS) {
      const note = `An object of ${node.properties.length} properties, more than a Rust struct here may have (${MAX_STRUCT_FIELDS}): a map of its keys' JSON values.`;
      this.warnings.push(`${hint.name}: ${note}`);
      return plain(JSON_MAP, [note, ...notes]);
    }
    // An object of no declared keys is a map; one only `additionalProperties: false` closes is an empty struct.
    if (node.properties.length === 0 && (patterns.length > 0 || node.additional !== false)) {
      if (patterns.length > 0 || node.additional === true) return plain(JSON_MAP, notes);
      const values = this.typeOf(node.additional as IRNode, child(hint, "Value"), false);
      return plain(`std::collections::BTreeMap<String, ${values.code}>`, [...notes, ...values.notes]);
    }
    return plain(this.struct(node, hint, undefined), []);
  }

  /** A named struct for an object; `tag` is the property a tagged enum reads instead. */
  private struct(node: ObjectNode, hint: Hint, tag: string | undefined): string {
    const name = this.hoist(hint);
    const fields = new NameScope();
    const lines: string[] = [];
    for (const property of node.properties) {
      if (property.name === tag) continue;
      // A Rust string holds no lone surrogate: a rename to U+FFFD would be a field that never matches.
      if (/\p{Cs}/u.test(property.name)) {
        this.warnings.push(
          `${name}: property ${JSON.stringify(property.name)} holds a lone surrogate, which serde_json neither reads nor writes: left out`,
        );
        continue;
      }
      const field = fields.claim(rustFieldName(property.name)).name;
      const type = this.typeOf(property.node, child({ name, exact: false }, pascalCase(property.name, "Field")), true);
      const attributes = field.replace(/^r#/, "") === property.name ? [] : [`rename = ${rustString(property.name)}`];
      let code = type.code;
      if (property.required) {
        // serde reads an absent `Option` field as `None`; a required one must be present, if null.
        if (type.option) attributes.push('deserialize_with = "Option::deserialize"');
      } else {
        code = `Option<${type.code}>`;
        attributes.push("default", 'skip_serializing_if = "Option::is_none"');
        // serde would read a present `null` as `None` too: only an absent key is, and null must fit the type.
        if (type.holdsNull || this.read) attributes.push(`deserialize_with = "${PRESENT}"`);
      }
      const doc = [...(property.description ? [property.description] : []), ...type.notes];
      lines.push(
        `${rustDoc(doc.join("\n"), "    ")}${attributes.length > 0 ? `    #[serde(${attributes.join(", ")})]\n` : ""}    pub ${field}: ${code},\n`,
      );
    }
    const patterns = node.patterns ?? [];
    const notes = [...propertyCountNotes(node), ...patternNotes(node)];
    const closed = node.additional === false && patterns.length === 0;
    // A flattened field also makes serde read the struct from a JSON object only: a derived struct
    // without one reads an array of its field values as well.
    if (typeof node.additional === "object" && patterns.length === 0) {
      // Keys not declared keep their values, typed: a round trip loses nothing.
      const extra = fields.claim("extra").name;
      const values = this.typeOf(node.additional, child({ name, exact: false }, "Extra"), false);
      lines.push(`    #[serde(flatten)]\n    pub ${extra}: std::collections::BTreeMap<String, ${values.code}>,\n`);
    } else if (this.read && !closed) {
      // Keys not declared (nor checked: by patterns or not at all) keep their values as JSON.
      lines.push(`    #[serde(flatten)]\n    pub ${fields.claim("extra").name}: ${JSON_MAP},\n`);
    } else if (this.read) {
      const type = this.once(
        "NoOtherKeys",
        DERIVE_EMPTY_STRUCT,
        "pub struct",
        "Flattened into the struct of a closed object: serde then reads it from a JSON object only.",
      );
      lines.push(`    #[serde(flatten)]\n    pub ${fields.claim("no_other_keys").name}: ${type},\n`);
    }
    const doc = notes.length > 0 ? rustDoc(notes.join("\n")) : "";
    this.items.set(name, `${doc}${DERIVE}${closed ? "#[serde(deny_unknown_fields)]\n" : ""}pub struct ${name} {\n${lines.join("")}}\n`);
    return name;
  }

  /** A type with no fields or variants, declared once per module as `wanted` (or a free name like it). */
  private once(wanted: string, derive: string, item: string, doc: string): string {
    let name = this.helpers.get(wanted);
    if (name === undefined) {
      name = this.scope.claim(wanted).name;
      this.helpers.set(wanted, name);
      this.items.set(name, `${rustDoc(doc)}${derive}${item} ${name} {}\n`);
    }
    return name;
  }

  private unionType(members: readonly IRNode[], exactlyOne: boolean, hint: Hint, direct: boolean): RustType {
    const withNull = members.some((member) => member.kind === "null" || (member.kind === "literals" && member.values.includes(null)));
    const present = members.flatMap((member): IRNode[] => {
      if (member.kind === "null") return [];
      if (member.kind !== "literals") return [member];
      const values = member.values.filter((value) => value !== null);
      return values.length > 0 ? [{ kind: "literals", values }] : [];
    });
    const own = withNull ? child(hint, "Value") : hint;
    let inner: RustType;
    if (present.length === 0) inner = nullable("()", []);
    else if (present.length === 1) inner = this.typeOf(present[0]!, own, direct);
    else if (present.every((member) => member.kind === "literals" && member.values.every((value) => typeof value === "string")))
      inner = plain(
        this.stringEnum(
          present.flatMap((member) => (member.kind === "literals" ? (member.values as string[]) : [])),
          own,
        ),
      );
    else {
      const tag = discriminator(present);
      inner = plain(tag === undefined ? this.untaggedEnum(present, own) : this.taggedEnum(present as ObjectNode[], tag, own));
      if (exactlyOne && tag === undefined)
        inner.notes.push("Exactly one alternative must match (not checked by serde: the first that fits is taken).");
    }
    if (!withNull || inner.holdsNull) return inner;
    return { code: `Option<${inner.code}>`, holdsNull: true, option: true, notes: inner.notes };
  }

  private untaggedEnum(members: readonly IRNode[], hint: Hint): string {
    const name = this.hoist(hint);
    const variants = new NameScope(["Self"]);
    // serde takes the first variant that fits: an integer must be tried before a number would take it as a float.
    const ordered = [...members].sort((a, b) => rank(a) - rank(b));
    const lines = ordered.map((member) => {
      const variant = variants.claim(variantName(member)).name;
      const type = this.typeOf(member, child({ name, exact: false }, variant), true);
      const doc = type.notes.length > 0 ? rustDoc(type.notes.join("\n"), "    ") : "";
      return `${doc}    ${variant}(${type.code}),\n`;
    });
    this.items.set(name, `${DERIVE}#[serde(untagged)]\npub enum ${name} {\n${lines.join("")}}\n`);
    return name;
  }

  private taggedEnum(members: readonly ObjectNode[], tag: string, hint: Hint): string {
    const name = this.hoist(hint);
    const variants = new NameScope(["Self"]);
    const lines = members.map((member) => {
      const value = tagValue(member, tag)!;
      const variant = variants.claim(rustTypeName(value, "Variant")).name;
      const struct = this.struct(member, { name: `${name}${variant}`, exact: false }, tag);
      return `    #[serde(rename = ${rustString(value)})]\n    ${variant}(${struct}),\n`;
    });
    this.items.set(name, `${DERIVE}#[serde(tag = ${rustString(tag)})]\npub enum ${name} {\n${lines.join("")}}\n`);
    return name;
  }
}

function plain(code: string, notes: string[] = []): RustType {
  return { code, holdsNull: false, option: false, notes };
}

function nullable(code: string, notes: string[]): RustType {
  return { code, holdsNull: true, option: false, notes };
}

function child(hint: Hint, suffix: string): Hint {
  return { name: `${hint.name}${suffix}`, exact: false };
}

/** A union member's variant name: by the kind of JSON it holds, or the definition it names. */
function variantName(node: IRNode): string {
  switch (node.kind) {
    case "ref":
      return node.name;
    case "number":
      return node.integer ? "Integer" : "Number";
    case "boolean":
      return "Bool";
    case "array":
    case "tuple":
      return "Array";
    case "literals":
      return "Literal";
    case "string":
    case "object":
      return pascalCase(node.kind);
    default:
      return "Value";
  }
}

/** Integers before other numbers, and any JSON last, since serde takes the first variant that fits. */
function rank(node: IRNode): number {
  if (node.kind === "number") return node.integer ? 0 : 1;
  return node.kind === "unknown" || node.kind === "check" ? 2 : 1;
}

/**
 * The property that tells a union's members apart, when every member is an inline object requiring
 * it as one string constant, each a different one: serde's internally tagged enum then reads it.
 */
function discriminator(members: readonly IRNode[]): string | undefined {
  if (!members.every((member) => member.kind === "object")) return undefined;
  const objects = members as ObjectNode[];
  const candidates = objects[0]!.properties.filter((property) => tagValue(objects[0]!, property.name) !== undefined);
  return candidates.find((candidate) => {
    const values = objects.map((member) => tagValue(member, candidate.name));
    return values.every((value) => value !== undefined) && new Set(values).size === values.length;
  })?.name;
}

function tagValue(node: ObjectNode, name: string): string | undefined {
  const property = node.properties.find((candidate) => candidate.name === name && candidate.required);
  if (property?.node.kind !== "literals" || property.node.values.length !== 1) return undefined;
  const [value] = property.node.values;
  return typeof value === "string" ? value : undefined;
}

function acceptsNull(node: IRNode, definitions: ReadonlyMap<string, NamedDefinition>, seen = new Set<string>()): boolean {
  switch (node.kind) {
    case "null":
    case "unknown":
    case "check":
      return true;
    case "literals":
      return node.values.includes(null);
    case "union":
      return node.members.some((member) => acceptsNull(member, definitions, seen));
    case "intersection": {
      // Rust types one typed member as itself, and anything else as any JSON.
      const typed = node.members.filter((member) => member.kind !== "check");
      return typed.length !== 1 || acceptsNull(typed[0]!, definitions, seen);
    }
    case "ref": {
      if (seen.has(node.name)) return false;
      seen.add(node.name);
      const definition = definitions.get(node.name);
      return definition !== undefined && acceptsNull(definition.node, definitions, seen);
    }
    default:
      return false;
  }
}

/** The definitions a node names, anywhere in it. */
function referencedNames(node: IRNode, into: Set<string>): Set<string> {
  const visit = (part: IRNode | undefined) => part !== undefined && referencedNames(part, into);
  switch (node.kind) {
    case "ref":
      into.add(node.name);
      break;
    case "array":
      visit(node.items);
      break;
    case "tuple":
      node.items.forEach(visit);
      if (node.rest !== null) visit(node.rest);
      break;
    case "object":
      for (const property of node.properties) visit(property.node);
      if (typeof node.additional === "object") visit(node.additional);
      break;
    case "union":
    case "intersection":
      node.members.forEach(visit);
      break;
    default:
      break;
  }
  return into;
}

/** Per definition, every definition reached from it through references. */
function reachable(definitions: ReadonlyMap<string, NamedDefinition>): Map<string, Set<string>> {
  const edges = new Map([...definitions].map(([name, definition]) => [name, referencedNames(definition.node, new Set())]));
  const reach = new Map<string, Set<string>>();
  for (const name of definitions.keys()) {
    const reached = new Set<string>();
    const visit = (from: string) => {
      for (const next of edges.get(from) ?? []) {
        if (reached.has(next)) continue;
        reached.add(next);
        visit(next);
      }
    };
    visit(name);
    reach.set(name, reached);
  }
  return reach;
}

function checkNames(members: readonly IRNode[]): string {
  return [...new Set(members.flatMap((member) => (member.kind === "check" ? [`\`${member.check.kind}\``] : [])))].join(", ");
}

function stringNotes(node: StringNode): string[] {
  return [
    ...(node.minLength !== undefined || node.maxLength !== undefined
      ? [`Length: ${range(node.minLength, node.maxLength)} (not checked by serde).`]
      : []),
    ...(node.pattern !== undefined ? [`Pattern: \`${node.pattern}\` (not checked by serde).`] : []),
    ...(node.format !== undefined ? [`Format: ${node.format} (not checked by serde).`] : []),
  ];
}

function numberNotes(node: NumberNode): string[] {
  const bounds = [
    node.minimum !== undefined ? `≥ ${node.minimum}` : "",
    node.exclusiveMinimum !== undefined ? `> ${node.exclusiveMinimum}` : "",
    node.maximum !== undefined ? `≤ ${node.maximum}` : "",
    node.exclusiveMaximum !== undefined ? `< ${node.exclusiveMaximum}` : "",
    node.multipleOf !== undefined ? `a multiple of ${node.multipleOf}` : "",
  ].filter(Boolean);
  return [
    ...(bounds.length > 0 ? [`Bounds: ${bounds.join(", ")} (not checked by serde).`] : []),
    ...(node.format !== undefined ? [`Format: ${node.format} (not checked by serde).`] : []),
  ];
}

function arrayNotes(node: ArrayNode | TupleNode): string[] {
  return [
    ...(node.minItems !== undefined || node.maxItems !== undefined
      ? [`Items: ${range(node.minItems, node.maxItems)} (not checked by serde).`]
      : []),
    ...(node.uniqueItems ? ["Items are unique (not checked by serde)."] : []),
  ];
}

function patternNotes(node: ObjectNode): string[] {
  return (node.patterns ?? []).map((pattern) => `Keys matching \`${pattern.pattern}\` have a schema of their own (not checked by serde).`);
}

function propertyCountNotes(node: ObjectNode): string[] {
  if (node.minProperties === undefined && node.maxProperties === undefined) return [];
  return [`Keys: ${range(node.minProperties, node.maxProperties)} (not checked by serde).`];
}

function range(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return min === max ? `exactly ${min}` : `${min} to ${max}`;
  return min !== undefined ? `at least ${min}` : `at most ${max}`;
}
