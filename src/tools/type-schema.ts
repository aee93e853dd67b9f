/**
 * TypeScript types as JSON Schemas, inlined: the input and output schemas of a tool function.
 * A type without a JSON Schema form is a problem located at its declaration, and becomes `{}`.
 */

import type { ManifestTool } from "../server/manifest.js";
import { constraintsOf, documentation, paramDocs, parameterDocumentation, paramTags, suggestion } from "./jsdoc.js";
import { problemAt, type SourceProblem } from "./source-problems.js";
import ts from "./typescript.cjs";

type JsonSchema = Record<string, unknown>;

/** Where a schema is being built: the declaration to blame and the path for messages, `["getX", "input", "lines", "[]"]`. */
interface Site {
  node: ts.Node;
  path: readonly string[];
}

/** State shared while converting one module's types. */
export interface Walk {
  program: ts.Program;
  checker: ts.TypeChecker;
  problems: SourceProblem[];
  /** Object types being converted, outermost first: a type met again is recursive. */
  stack: ts.Type[];
  /** `@param` descriptions of the tool's input, keyed by property path (`sku`, `address.city`); empty for outputs. */
  readonly paramDocs: ReadonlyMap<string, string>;
  /** Defaults a destructured object parameter gives its properties (`{ limit = 20 }`), keyed like `paramDocs`. */
  readonly defaults: ReadonlyMap<string, { value: unknown }>;
}

/** Cut-off for types that keep growing (`Box<Box<T>>` through generics) instead of recurring. */
const MAX_DEPTH = 32;

/** A tool's input: its schema, and the order of its positional parameters when it takes them. */
export interface ToolInput {
  inputSchema: ManifestTool["inputSchema"];
  parameters?: string[];
}

/** A signature's parameters but a `this` parameter, which is no argument. */
export function toolParameters(declaration: ts.SignatureDeclaration): ts.ParameterDeclaration[] {
  return declaration.parameters.filter((parameter) => !(ts.isIdentifier(parameter.name) && parameter.name.text === "this"));
}

/**
 * A single parameter of object type is the arguments object, as before; any other parameters are
 * positional, each a named property. Undefined (with a problem) when the signature cannot be called
 * with named arguments: a rest parameter, a destructured positional one, one named `__proto__`.
 * A `@param` that names nothing in the input is `warn`'s: its text would otherwise be lost unseen.
 */
export function inputOf(
  declaration: ts.SignatureDeclaration,
  walk: Walk,
  name: string,
  tags: readonly ts.JSDocTag[],
  warn: (tag: ts.JSDocTag, message: string) => void,
): ToolInput | undefined {
  const parameters = toolParameters(declaration);
  const [first] = parameters;
  const objectParameter = first !== undefined && parameters.length === 1 && isObjectParameter(first, walk) ? first : undefined;
  const params = paramTags(tags, objectParameter);
  const input = { ...walk, paramDocs: paramDocs(params), defaults: bindingDefaults(objectParameter, walk.checker) };
  let result: ToolInput | undefined;
  if (first === undefined) result = { inputSchema: { type: "object", properties: {}, additionalProperties: false } };
  else if (objectParameter !== undefined) {
    const schema = schemaOf(walk.checker.getTypeAtLocation(objectParameter), input, { node: objectParameter, path: [name, "input"] });
    result = { inputSchema: schema as ManifestTool["inputSchema"] };
  } else result = positionalInput(parameters, input, name);
  if (result !== undefined) {
    const paths = propertyPaths(result.inputSchema);
    for (const { tag, key } of params) {
      if (key !== "" && !paths.includes(key)) warn(tag, `@param ${key} names no argument and is ignored${suggestion(key, paths, "")}`);
    }
  }
  return result;
}

function positionalInput(parameters: readonly ts.ParameterDeclaration[], walk: Walk, name: string): ToolInput | undefined {
  const entries: [string, JsonSchema][] = [];
  const required: string[] = [];
  for (const [index, parameter] of parameters.entries()) {
    if (parameter.dotDotDotToken !== undefined) {
      walk.problems.push(problemAt(parameter, `${name}: a rest parameter cannot be a named argument: take an array instead`));
      return undefined;
    }
    if (!ts.isIdentifier(parameter.name)) {
      walk.problems.push(
        problemAt(parameter, `${name}: parameter ${index + 1} is destructured: only a tool's single object parameter may be`),
      );
      return undefined;
    }
    // JSON objects carry "__proto__" as a key, but reading it back yields the prototype.
    if (parameter.name.text === "__proto__") {
      walk.problems.push(problemAt(parameter, `${name}: a parameter named __proto__ cannot be an argument: rename it`));
      return undefined;
    }
    const symbol = walk.checker.getSymbolAtLocation(parameter.name);
    const type = walk.checker.getTypeAtLocation(parameter);
    const site = { node: parameter, path: [name, "input", parameter.name.text] };
    const fallback = parameter.initializer === undefined ? undefined : literalOf(parameter.initializer, walk.checker);
    entries.push([
      parameter.name.text,
      {
        ...memberSchema(symbol, type, walk, site, symbol === undefined ? "" : parameterDocumentation(symbol, walk.checker)),
        ...(fallback === undefined ? {} : { default: fallback.value }),
      },
    ]);
    if (parameter.questionToken === undefined && parameter.initializer === undefined && !includesUndefined(type)) {
      required.push(parameter.name.text);
    }
  }
  return {
    inputSchema: {
      type: "object",
      properties: Object.fromEntries(entries),
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    parameters: entries.map(([parameterName]) => parameterName),
  };
}

/** The dotted paths of an input's properties, at every depth and in each branch of a union, as `@param` names them. */
function propertyPaths(schema: unknown, prefix = ""): string[] {
  if (typeof schema !== "object" || schema === null) return [];
  const { properties, anyOf, oneOf } = schema as JsonSchema;
  const branches = [anyOf, oneOf].flatMap((list) => (Array.isArray(list) ? list : []));
  const own =
    typeof properties === "object" && properties !== null
      ? Object.entries(properties).flatMap(([key, value]) => [`${prefix}${key}`, ...propertyPaths(value, `${prefix}${key}.`)])
      : [];
  return [...new Set([...own, ...branches.flatMap((branch) => propertyPaths(branch, prefix))])];
}

/** `{ limit = 20 }` in a destructured object parameter: the defaults its properties get. */
function bindingDefaults(parameter: ts.ParameterDeclaration | undefined, checker: ts.TypeChecker): Map<string, { value: unknown }> {
  const defaults = new Map<string, { value: unknown }>();
  if (parameter === undefined || !ts.isObjectBindingPattern(parameter.name)) return defaults;
  for (const element of parameter.name.elements) {
    const key = element.propertyName ?? element.name;
    if (element.initializer === undefined || !(ts.isIdentifier(key) || ts.isStringLiteral(key))) continue;
    const value = literalOf(element.initializer, checker);
    if (value !== undefined) defaults.set(key.text, value);
  }
  return defaults;
}

/** Whether a parameter's type, without `undefined`, is a JSON object; decided without reporting its problems twice. */
function isObjectParameter(parameter: ts.ParameterDeclaration, walk: Walk): boolean {
  const trial: Walk = { ...walk, problems: [], stack: [] };
  // schemaOf drops `undefined` from a union; `| null` stays, and makes the parameter positional.
  return schemaOf(walk.checker.getTypeAtLocation(parameter), trial, { node: parameter, path: [] }).type === "object";
}

/**
 * A default written as a literal (`20`, `"latest"`, `-1`, `null`, a `const` holding one, arrays
 * and objects of them); undefined for a default computed at the call, which the schema cannot state.
 */
export function literalOf(expression: ts.Expression, checker: ts.TypeChecker): { value: unknown } | undefined {
  if (ts.isParenthesizedExpression(expression) || ts.isAsExpression(expression) || ts.isSatisfiesExpression(expression)) {
    return literalOf(expression.expression, checker);
  }
  if (ts.isArrayLiteralExpression(expression)) {
    const items = expression.elements.map((element) => (ts.isSpreadElement(element) ? undefined : literalOf(element, checker)));
    return items.every((item) => item !== undefined) ? { value: items.map((item) => item.value) } : undefined;
  }
  if (ts.isObjectLiteralExpression(expression)) {
    const entries = expression.properties.map((property) => {
      if (!ts.isPropertyAssignment(property) || !(ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))) return undefined;
      const item = literalOf(property.initializer, checker);
      return item === undefined ? undefined : ([property.name.text, item.value] as const);
    });
    return entries.every((entry) => entry !== undefined) ? { value: Object.fromEntries(entries) } : undefined;
  }
  if (expression.kind === ts.SyntaxKind.NullKeyword) return { value: null };
  const type = checker.getTypeAtLocation(expression);
  const value = isLiteral(type) ? literalValue(type, checker) : undefined;
  // `1e400` is a literal too, but JSON has no Infinity: the schema would hold null.
  return value === undefined || (typeof value === "number" && !Number.isFinite(value)) ? undefined : { value };
}

/**
 * MCP's `structuredContent` is an object (protocol 2025-06-18 and 2025-11-25), so only an
 * object result gets an output schema; any other result is served as text alone, and
 * `void` results have nothing to describe.
 */
export function outputSchemaOf(
  awaited: ts.Type,
  declaration: ts.SignatureDeclaration,
  walk: Walk,
  name: string,
): ManifestTool["outputSchema"] {
  const members = awaited.isUnion() ? awaited.types : [awaited];
  if (members.every((member) => member.flags & (ts.TypeFlags.Void | ts.TypeFlags.Undefined))) return undefined;
  const schema = schemaOf(awaited, walk, { node: declaration.type ?? declaration, path: [name, "output"] });
  return schema.type === "object" ? (schema as ManifestTool["outputSchema"]) : undefined;
}

/** The JSON Schema of a type, inlined; a construct without one is a problem and becomes `{}`. */
function schemaOf(type: ts.Type, walk: Walk, site: Site): JsonSchema {
  const { flags } = type;
  if (flags & ts.TypeFlags.String) return { type: "string" };
  if (flags & ts.TypeFlags.Number) return { type: "number" };
  if (flags & ts.TypeFlags.Boolean) return { type: "boolean" };
  if (flags & ts.TypeFlags.Null) return { type: "null" };
  if (isLiteral(type)) return enumSchema([type], walk.checker);
  if (type.isUnion()) return unionSchema(type, walk, site);
  if (flags & ts.TypeFlags.Object || type.isIntersection()) return objectTypeSchema(type, walk, site);
  return unsupported(walk, site, `${walk.checker.typeToString(type)} has no JSON Schema form${hint(flags)}`);
}

function hint(flags: ts.TypeFlags): string {
  if (flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return ": give the value a concrete type";
  if (flags & ts.TypeFlags.TypeParameter) return ": a tool's types must not be generic";
  if (flags & ts.TypeFlags.BigIntLike) return ": JSON numbers are not bigints, use number or a string";
  return "";
}

function isLiteral(type: ts.Type): boolean {
  return (type.flags & (ts.TypeFlags.StringLiteral | ts.TypeFlags.NumberLiteral | ts.TypeFlags.BooleanLiteral)) !== 0;
}

function literalValue(type: ts.Type, checker: ts.TypeChecker): string | number | boolean {
  if (type.isStringLiteral() || type.isNumberLiteral()) return type.value;
  return type === checker.getTrueType();
}

function enumSchema(literals: readonly ts.Type[], checker: ts.TypeChecker): JsonSchema {
  const values = literals.map((literal) => literalValue(literal, checker));
  const types = [...new Set(values.map((value) => typeof value))];
  return { type: types.length === 1 ? types[0] : types, enum: values };
}

/**
 * `undefined` members are dropped (the property walker makes such properties optional),
 * literals merge into one `enum`, `true | false` is `boolean`, and `null` is added to the
 * type (or as an `anyOf` branch when there is no single type to extend).
 */
function unionSchema(type: ts.UnionType, walk: Walk, site: Site): JsonSchema {
  const members = type.types.filter((member) => !(member.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)));
  const nullable = members.some((member) => member.flags & ts.TypeFlags.Null);
  const rest = members.filter((member) => !(member.flags & ts.TypeFlags.Null));
  const booleans = rest.filter((member) => member.flags & ts.TypeFlags.BooleanLiteral);
  const bothBooleans = booleans.length === 2;
  const literals = rest.filter((member) => isLiteral(member) && !(bothBooleans && member.flags & ts.TypeFlags.BooleanLiteral));
  const others = rest.filter((member) => !isLiteral(member));
  const parts = [
    ...(literals.length > 0 ? [enumSchema(literals, walk.checker)] : []),
    ...(bothBooleans ? [{ type: "boolean" }] : []),
    ...others.map((member) => schemaOf(member, walk, site)),
  ];
  const [first] = parts;
  if (first === undefined) return nullable ? { type: "null" } : unsupported(walk, site, "undefined has no JSON Schema form");
  const schema = parts.length === 1 ? first : { anyOf: parts };
  return nullable ? withNull(schema) : schema;
}

function withNull(schema: JsonSchema): JsonSchema {
  const { type } = schema;
  if (typeof type === "string" || Array.isArray(type)) {
    const types = typeof type === "string" ? [type, "null"] : [...(type as unknown[]), "null"];
    return { ...schema, type: types, ...(Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {}) };
  }
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: "null" }] };
  return Object.keys(schema).length === 0 ? schema : { anyOf: [schema, { type: "null" }] };
}

function objectTypeSchema(type: ts.Type, walk: Walk, site: Site): JsonSchema {
  const { checker } = walk;
  if (walk.stack.includes(type)) {
    return unsupported(walk, site, `${checker.typeToString(type)} is recursive: schemas are inlined, so a type may not contain itself`);
  }
  if (walk.stack.length >= MAX_DEPTH) return unsupported(walk, site, `${checker.typeToString(type)} nests deeper than ${MAX_DEPTH} levels`);
  walk.stack.push(type);
  try {
    return objectKindSchema(type, walk, site);
  } finally {
    walk.stack.pop();
  }
}

function objectKindSchema(type: ts.Type, walk: Walk, site: Site): JsonSchema {
  const { checker } = walk;
  const typeText = checker.typeToString(type);
  if (type.isIntersection() && !type.types.every((member) => member.flags & ts.TypeFlags.Object)) {
    return unsupported(walk, site, `${typeText} cannot be flattened into one object type`);
  }
  if (checker.isTupleType(type)) return tupleSchema(type as ts.TupleTypeReference, walk, site);
  if (checker.isArrayType(type)) {
    const [element] = checker.getTypeArguments(type as ts.TypeReference);
    return { type: "array", items: element === undefined ? {} : schemaOf(element, walk, { ...site, path: [...site.path, "[]"] }) };
  }
  const library = declaredInLibrary(type, walk.program);
  if (library && type.symbol.name === "Date") return { type: "string", format: "date-time" };
  if (
    checker.getSignaturesOfType(type, ts.SignatureKind.Call).length > 0 ||
    checker.getSignaturesOfType(type, ts.SignatureKind.Construct).length > 0
  ) {
    return unsupported(walk, site, `${typeText} is a function: functions have no JSON form`);
  }
  if (type.symbol !== undefined && type.symbol.flags & ts.SymbolFlags.Class) {
    return unsupported(walk, site, `${typeText} is a class: only Date and plain object types are supported`);
  }
  if (library && type.symbol.flags & ts.SymbolFlags.Interface) {
    return unsupported(walk, site, `${typeText} has no JSON form: use an array or Record<string, T> instead`);
  }
  return propertiesSchema(type, walk, site);
}

/** Built-in interfaces and classes (Map, Set, Promise, RegExp…); lib mapped types such as Record resolve to plain objects. */
function declaredInLibrary(type: ts.Type, program: ts.Program): boolean {
  const declarations = type.symbol?.declarations ?? [];
  return declarations.length > 0 && declarations.every((declaration) => program.isSourceFileDefaultLibrary(declaration.getSourceFile()));
}

/**
 * `prefixItems` with `minItems`/`maxItems`. A fixed tuple gets no `items: false`: `maxItems`
 * already bounds it, and draft-07 readers such as the SDK 1.x client's Ajv take `items: false`
 * as "no items at all" and reject every result holding the tuple.
 */
function tupleSchema(type: ts.TupleTypeReference, walk: Walk, site: Site): JsonSchema {
  const { elementFlags, minLength } = type.target;
  const elements = walk.checker.getTypeArguments(type);
  const restIndex = elementFlags.findIndex((flag) => flag & ts.ElementFlags.Variable);
  if (restIndex !== -1 && (restIndex !== elements.length - 1 || elementFlags[restIndex]! & ts.ElementFlags.Variadic)) {
    return unsupported(walk, site, `${walk.checker.typeToString(type)}: only a trailing ...rest element is supported in a tuple`);
  }
  const fixed = restIndex === -1 ? elements : elements.slice(0, restIndex);
  const rest = restIndex === -1 ? undefined : elements[restIndex];
  const itemSite = (index: number | "rest"): Site => ({ ...site, path: [...site.path, `[${index}]`] });
  return {
    type: "array",
    prefixItems: fixed.map((element, index) => schemaOf(element, walk, itemSite(index))),
    minItems: minLength,
    ...(rest === undefined ? { maxItems: fixed.length } : { items: schemaOf(rest, walk, itemSite("rest")) }),
  };
}

function propertiesSchema(type: ts.Type, walk: Walk, site: Site): JsonSchema {
  const { checker } = walk;
  // Entries, not assignments: a property named "__proto__" must stay a property.
  const entries: [string, JsonSchema][] = [];
  const required: string[] = [];
  for (const property of checker.getPropertiesOfType(type)) {
    const path = [...site.path, property.name];
    const propertySite = { node: userDeclaration(property, walk.program) ?? site.node, path };
    const propertyType = checker.getTypeOfSymbol(property);
    const description = walk.paramDocs.get(docKey(path)) ?? documentation(property, checker);
    const fallback = walk.defaults.get(docKey(path));
    entries.push([
      property.name,
      {
        ...memberSchema(property, propertyType, walk, propertySite, description),
        ...(fallback === undefined ? {} : { default: fallback.value }),
      },
    ]);
    if (!(property.flags & ts.SymbolFlags.Optional) && !includesUndefined(propertyType)) required.push(property.name);
  }
  const additionalProperties = additionalPropertiesOf(type, walk, site);
  // A pure map (`Record<string, T>`) has no named properties to list.
  const properties = Object.fromEntries(entries);
  const listed = entries.length > 0 || additionalProperties === false;
  return {
    type: "object",
    ...(listed ? { properties } : {}),
    ...(required.length > 0 ? { required } : {}),
    additionalProperties,
  };
}

/** A property's or parameter's schema: its description, its type's schema, and the constraints its JSDoc states. */
function memberSchema(symbol: ts.Symbol | undefined, type: ts.Type, walk: Walk, site: Site, description: string): JsonSchema {
  const schema = schemaOf(type, walk, site);
  const constraints =
    symbol === undefined
      ? {}
      : constraintsOf(symbol, walk.checker, (message) => walk.problems.push(problemAt(site.node, `${site.path.join(".")}: ${message}`)));
  return { ...(description === "" ? {} : { description }), ...schema, ...constraints };
}

/** A string index signature (`Record<string, T>`) admits further keys of type T; anything else admits none. */
function additionalPropertiesOf(type: ts.Type, walk: Walk, site: Site): JsonSchema | false {
  let additional: JsonSchema | false = false;
  for (const info of walk.checker.getIndexInfosOfType(type)) {
    const indexSite = { node: info.declaration ?? site.node, path: [...site.path, "[key]"] };
    if (info.keyType.flags & ts.TypeFlags.String) additional = schemaOf(info.type, walk, indexSite);
    else unsupported(walk, indexSite, `${walk.checker.typeToString(info.keyType)} keys are not supported: JSON object keys are strings`);
  }
  return additional;
}

/** `@param` paths are relative to the parameter: `["getX", "input", "address", "city"]` → `address.city`. */
function docKey(path: readonly string[]): string {
  return path.slice(2).join(".");
}

function includesUndefined(type: ts.Type): boolean {
  return type.isUnion() && type.types.some((member) => member.flags & ts.TypeFlags.Undefined);
}

/** Declarations in lib files, and synthetic ones from mapped types, cannot be blamed: the caller's site is used. */
function userDeclaration(symbol: ts.Symbol, program: ts.Program): ts.Node | undefined {
  const declaration = symbol.valueDeclaration ?? symbol.declarations?.[0];
  if (declaration === undefined || declaration.pos < 0) return undefined;
  return program.isSourceFileDefaultLibrary(declaration.getSourceFile()) ? undefined : declaration;
}

function unsupported(walk: Walk, site: Site, message: string): JsonSchema {
  const [name, ...path] = site.path;
  walk.problems.push(problemAt(site.node, `${name}: ${path.join(".").replace(/\.(\[[^\]]*\])/g, "$1")}: ${message}`));
  return {};
}
