import fc from "fast-check";

type Schema = Record<string, unknown>;

/**
 * Instances for a JSON Schema: mostly shaped by the schema (so many are valid), mixed
 * with mutated and arbitrary JSON (so many are not). The oracle is Ajv, so this only
 * needs to reach both sides of the boundary, not to be exact.
 */
export function samples(schema: unknown): fc.Arbitrary<unknown> {
  const guided = shaped(schema, schema, 0);
  return fc.oneof(
    { weight: 4, arbitrary: guided },
    { weight: 2, arbitrary: guided.chain(mutate) },
    { weight: 1, arbitrary: fc.jsonValue() },
  );
}

function shaped(schema: unknown, root: unknown, depth: number): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constantFrom(null, 0, "", [], {});
  if (schema === true || schema === undefined) return fc.jsonValue({ maxDepth: 2 });
  if (schema === false || typeof schema !== "object" || schema === null) return fc.jsonValue({ maxDepth: 1 });
  const s = schema as Schema;
  if (typeof s.$ref === "string" && s.$ref.startsWith("#")) return shaped(resolve(root, s.$ref.slice(1)), root, depth + 1);
  // Dynamic anchors in the corpus sit at the root.
  if (typeof s.$dynamicRef === "string") return shaped(root, root, depth + 1);
  if ("const" in s) return fc.constant(s.const);
  if (Array.isArray(s.enum) && s.enum.length > 0) return fc.constantFrom(...s.enum);
  for (const key of ["anyOf", "oneOf"]) {
    const { [key]: list, ...rest } = s;
    // Each branch with the keywords beside it, so that the instance can fit both.
    if (Array.isArray(list) && list.length > 0) return fc.oneof(...list.map((member) => shaped(merge(rest, member), root, depth + 1)));
  }
  if (Array.isArray(s.allOf) && s.allOf.length > 0) {
    const { allOf, ...rest } = s;
    return shaped(allOf.reduce(merge, rest), root, depth + 1);
  }
  // In-place keywords: reach the side where they hold and the side where they do not.
  if ("not" in s) {
    const { not, ...rest } = s;
    return fc.oneof(shaped(rest, root, depth + 1), shaped(merge(rest, not), root, depth + 1));
  }
  if ("if" in s) {
    const { if: condition, then, else: otherwise, ...rest } = s;
    return fc.oneof(
      shaped(merge(merge(rest, condition), then ?? {}), root, depth + 1),
      shaped(merge(rest, otherwise ?? {}), root, depth + 1),
    );
  }
  if (typeof s.dependentSchemas === "object" && s.dependentSchemas !== null) {
    const { dependentSchemas, ...rest } = s;
    const dependents = Object.values(dependentSchemas as Record<string, unknown>);
    return fc.oneof(shaped(rest, root, depth + 1), ...dependents.map((dependent) => shaped(merge(rest, dependent), root, depth + 1)));
  }
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? inferType(s) : [s.type];
  const arbitraries = types.map((type: unknown) => byType(String(type), s, root, depth));
  if (s.nullable === true) arbitraries.push(fc.constant(null));
  return arbitraries.length === 0 ? fc.jsonValue({ maxDepth: 2 }) : fc.oneof(...arbitraries);
}

function inferType(s: Schema): string[] {
  if ("properties" in s || "additionalProperties" in s || "required" in s) return ["object"];
  if ("items" in s || "prefixItems" in s) return ["array"];
  if ("minLength" in s || "pattern" in s || "format" in s) return ["string"];
  if ("minimum" in s || "maximum" in s || "multipleOf" in s) return ["number"];
  return [];
}

function byType(type: string, s: Schema, root: unknown, depth: number): fc.Arbitrary<unknown> {
  switch (type) {
    case "null":
      return fc.constant(null);
    case "boolean":
      return fc.boolean();
    case "integer":
    case "number": {
      const min = num(s.minimum) ?? num(s.exclusiveMinimum);
      const max = num(s.maximum) ?? num(s.exclusiveMaximum);
      if (typeof s.multipleOf === "number") return fc.integer({ min: -20, max: 20 }).map((n) => n * (s.multipleOf as number));
      if (type === "integer") return fc.integer({ min: Math.ceil(min ?? -1000), max: Math.floor(max ?? 1000) });
      return fc.double({ min: min ?? -1000, max: max ?? 1000, noNaN: true, noDefaultInfinity: true });
    }
    case "string":
      return stringArbitrary(s);
    case "array": {
      const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : undefined;
      const rest = prefix === s.items ? s.additionalItems : prefix !== undefined ? s.items : undefined;
      const more = typeof rest === "object" ? rest : typeof s.unevaluatedItems === "object" ? s.unevaluatedItems : undefined;
      const tailItem = fc.oneof(fc.jsonValue({ maxDepth: 1 }), shaped(more, root, depth + 1));
      if (prefix !== undefined) {
        return fc
          .tuple(...prefix.map((item) => shaped(item, root, depth + 1)))
          .chain((head) => fc.array(tailItem, { maxLength: 2 }).map((tail) => [...head, ...tail]));
      }
      const item =
        "contains" in s
          ? fc.oneof(shaped(s.items, root, depth + 1), shaped(s.contains, root, depth + 1))
          : shaped(s.items, root, depth + 1);
      return fc.array(item, {
        minLength: num(s.minItems) ?? 0,
        maxLength: Math.max(num(s.minItems) ?? 0, Math.min(num(s.maxItems) ?? 4, 4)),
      });
    }
    case "object": {
      const properties = (s.properties ?? {}) as Record<string, unknown>;
      const model: Record<string, fc.Arbitrary<unknown>> = {};
      // Defined, not assigned: a "__proto__" key must stay a key.
      for (const [key, value] of Object.entries(properties)) {
        Object.defineProperty(model, key, { value: shaped(value, root, depth + 1), enumerable: true });
      }
      const required = (Array.isArray(s.required) ? s.required : []).filter((key) => Object.hasOwn(model, key));
      const extra =
        typeof s.additionalProperties === "object" ? shaped(s.additionalProperties, root, depth + 1) : fc.jsonValue({ maxDepth: 1 });
      const patterned = Object.entries((s.patternProperties ?? {}) as Record<string, unknown>).map(([pattern, value]) =>
        fc.dictionary(matching(pattern), shaped(value, root, depth + 1), { maxKeys: 2 }),
      );
      return fc
        .tuple(
          fc.record(model, { requiredKeys: required as string[] }),
          fc.dictionary(keyArbitrary(s.propertyNames), extra, { maxKeys: 1 }),
          ...patterned,
        )
        .map(([declared, more, ...matching]) => Object.fromEntries([more, ...matching, declared].flatMap((part) => Object.entries(part))));
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** Strings matching `pattern` where fast-check can build them (not every regular expression), else any. */
function matching(pattern: string): fc.Arbitrary<string> {
  try {
    return fc.stringMatching(new RegExp(pattern, "u"));
  } catch {
    return fc.string({ maxLength: 4 });
  }
}

/** Keys for undeclared properties: from `propertyNames` half of the time, when it says what they look like. */
function keyArbitrary(names: unknown): fc.Arbitrary<string> {
  const any = fc.string({ maxLength: 3 });
  if (typeof names !== "object" || names === null) return any;
  const s = names as Schema;
  if (Array.isArray(s.enum)) return fc.oneof(any, fc.constantFrom(...s.enum.filter((name) => typeof name === "string")));
  return fc.oneof(any, stringArbitrary(s));
}

/** Two schemas' constraints on one instance, roughly: properties and required lists merged, the rest overwritten. */
function merge(left: unknown, right: unknown): Schema {
  if (typeof right !== "object" || right === null) return left as Schema;
  const a = left as Schema;
  const b = right as Schema;
  const merged: Schema = { ...a, ...b };
  if ("properties" in a || "properties" in b) merged.properties = { ...(a.properties as object), ...(b.properties as object) };
  if ("required" in a || "required" in b) merged.required = [...((a.required as []) ?? []), ...((b.required as []) ?? [])];
  if (Array.isArray(a.prefixItems) && Array.isArray(b.prefixItems)) {
    const longer = a.prefixItems.length > b.prefixItems.length ? a.prefixItems : b.prefixItems;
    merged.prefixItems = longer
      .map((_item, index) => (b.prefixItems as unknown[])[index] ?? (a.prefixItems as unknown[])[index])
      .map((item, index) => (item === true ? ((a.prefixItems as unknown[])[index] ?? true) : item));
  }
  return merged;
}

function stringArbitrary(s: Schema): fc.Arbitrary<string> {
  if (typeof s.pattern === "string") return matching(s.pattern);
  switch (s.format) {
    case "date-time":
      return fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((date) => date.toISOString());
    case "email":
      return fc.constantFrom("a@example.com", "first.last@example.org", "not-an-email", "x@y");
    case "uuid":
      return fc.uuid();
    default:
      return fc.string({ minLength: Math.max(0, (num(s.minLength) ?? 0) - 1), maxLength: (num(s.maxLength) ?? 6) + 1, unit: "binary" });
  }
}

/** Small structural damage: a key dropped or added, a value swapped for another type. */
function mutate(value: unknown): fc.Arbitrary<unknown> {
  if (Array.isArray(value))
    return fc.constantFrom(
      [...value, value[0] ?? null],
      value.slice(1),
      value.map(() => "x"),
    );
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value);
    return fc.constantFrom(
      Object.fromEntries(Object.entries(value).slice(1)),
      { ...value, extra_key: 1 },
      keys.length > 0 ? { ...value, [keys[0]!]: "changed" } : { x: 1 },
      keys.length > 0 ? { ...value, [keys[0]!]: null } : {},
    );
  }
  return fc.constantFrom(null, "", "1", 1, 1.5, true, [value], { value });
}

function resolve(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    node = (node as Record<string, unknown> | undefined)?.[key];
  }
  return node;
}

function num(value: unknown): number | undefined {
  return typeof value === "number" ? value : undefined;
}
