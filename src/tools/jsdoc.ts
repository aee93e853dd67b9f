import { TOOL_TAG_KEYS } from "../bundle/tool-tags.js";
import { compiles } from "../ir/checks.js";
import { knownFormats } from "../json-schema/validator.js";
import ts from "./typescript.cjs";

/** JSDoc tags that set an MCP hint to true. */
const HINT_TAGS: Readonly<Record<string, string>> = {
  readOnly: "readOnlyHint",
  destructive: "destructiveHint",
  idempotent: "idempotentHint",
  openWorld: "openWorldHint",
};

/** The annotation keys the hint tags set. */
export const HINT_KEYS: readonly string[] = Object.values(HINT_TAGS);

/** The JSDoc tags of a tool function. */
export function jsDocTags(declaration: ts.SignatureDeclaration): readonly ts.JSDocTag[] {
  return ts.getJSDocTags(tagHost(declaration));
}

/** JSDoc of `export const f = async () => …` (and of `m = async () => …` in a class) sits on the variable or property, not on the arrow. */
function tagHost(declaration: ts.SignatureDeclaration): ts.Node {
  const { parent } = declaration;
  return ts.isVariableDeclaration(parent) || ts.isPropertyDeclaration(parent) ? parent : declaration;
}

/** The documentation comment of a declaration (a function, a property), trimmed; `""` when it has none. */
export function documentation(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  return ts.displayPartsToString(symbol.getDocumentationComment(checker)).trim();
}

/** A `@param` tag, with the input property path it describes (`""`: the arguments object as a whole). */
export interface ParamTag {
  tag: ts.JSDocParameterTag;
  key: string;
  text: string;
}

/**
 * The `@param` tags of a tool. With the arguments object `objectParameter`, `@param args.sku` and
 * `@param sku` both describe the property `sku`, and a bare `@param args` the whole object. With
 * positional parameters, the path is the parameter's name and the properties below it
 * (`filters.minPrice`).
 */
export function paramTags(tags: readonly ts.JSDocTag[], objectParameter: ts.ParameterDeclaration | undefined): ParamTag[] {
  const names = objectParameter === undefined ? undefined : wholeNames(objectParameter);
  return tags.filter(ts.isJSDocParameterTag).map((tag) => {
    const segments = entityName(tag.name).split(".");
    const whole = names !== undefined && segments.length === 1 && names(segments[0]!);
    const path = objectParameter !== undefined && segments.length > 1 ? segments.slice(1) : segments;
    return { tag, key: whole ? "" : path.join("."), text: commentText(tag) };
  });
}

/**
 * Which single `@param` name means the arguments object as a whole: its own name; for a
 * destructured one, which has none, any name that is not one of its properties (`@param options`).
 */
function wholeNames(parameter: ts.ParameterDeclaration): (name: string) => boolean {
  const { name } = parameter;
  if (ts.isIdentifier(name)) return (given) => given === name.text;
  const properties = new Set(
    ts.isObjectBindingPattern(name)
      ? name.elements.flatMap((element) => {
          const key = element.propertyName ?? element.name;
          return ts.isIdentifier(key) || ts.isStringLiteral(key) ? [key.text] : [];
        })
      : [],
  );
  return (given) => !properties.has(given);
}

/** Property descriptions by path, from `paramTags`. */
export function paramDocs(tags: readonly ParamTag[]): Map<string, string> {
  return new Map(tags.filter(({ key, text }) => key !== "" && text !== "").map(({ key, text }) => [key, text]));
}

function entityName(name: ts.EntityName): string {
  return ts.isIdentifier(name) ? name.text : `${entityName(name.left)}.${name.right.text}`;
}

/** A tag's text without the optional `- ` JSDoc puts between a name and its description. */
function commentText(tag: ts.JSDocTag): string {
  return withoutDash(ts.getTextOfJSDocComment(tag.comment) ?? "");
}

/** A value is not a separator: `@popularity -3` keeps its sign. */
function withoutDash(text: string): string {
  return text.replace(/^-\s+/, "").trim();
}

/** A number as JSDoc tags write one: decimal, signed, with an exponent; not `0x10`, nor one past JSON's range (`1e400`). */
export function decimalNumber(text: string): number | undefined {
  const value = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text) ? Number(text) : undefined;
  return value !== undefined && Number.isFinite(value) ? value : undefined;
}

/** A positional parameter's description: its `@param` text and its own doc comment, as the checker joins them. */
export function parameterDocumentation(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  return withoutDash(documentation(symbol, checker));
}

/** The text of a tool's `@returns` (or `@return`); `""` without one. */
export function returnsText(tags: readonly ts.JSDocTag[]): string {
  const tag = tags.find(ts.isJSDocReturnTag);
  return tag === undefined ? "" : commentText(tag);
}

/** The tool tags and the `_meta` key each is kept under; `@popularity` takes a number, the others a name. */
const META_TAGS: Readonly<Record<string, { key: string; number: boolean }>> = {
  category: { key: TOOL_TAG_KEYS.category, number: false },
  phase: { key: TOOL_TAG_KEYS.phase, number: false },
  popularity: { key: TOOL_TAG_KEYS.popularity, number: true },
  rateLimit: { key: TOOL_TAG_KEYS.rateLimit, number: false },
};

/**
 * The `_meta` a tool's tool tags give; undefined without any. A value the tag cannot take (not one
 * name, not a number, the tag twice) is `problem`'s; `@phase Basic` is a warning, since only
 * `basic` marks the first listing.
 */
export function toolMetaOf(
  tags: readonly ts.JSDocTag[],
  problem: (tag: ts.JSDocTag, message: string) => void,
  warn: (tag: ts.JSDocTag, message: string) => void,
): Record<string, unknown> | undefined {
  const meta: Record<string, unknown> = {};
  for (const tag of tags) {
    const name = tag.tagName.text;
    const known = Object.hasOwn(META_TAGS, name) ? META_TAGS[name] : undefined;
    if (known === undefined) continue;
    const text = commentText(tag);
    const value = known.number ? decimalNumber(text) : /^\S+$/.test(text) ? text : undefined;
    if (Object.hasOwn(meta, known.key)) problem(tag, `@${name} is given twice: a tool has one`);
    else if (value === undefined) problem(tag, `@${name} ${JSON.stringify(text)}: ${known.number ? "a number" : "one name"} is expected`);
    else meta[known.key] = value;
    if (name === "phase" && typeof value === "string" && value !== "basic" && value.toLowerCase() === "basic") {
      warn(tag, `@phase ${value}: only "basic", in lower case, marks the first listing`);
    }
  }
  return Object.keys(meta).length === 0 ? undefined : meta;
}

/** Tags JSDoc and TSDoc define for documentation or for other tools: a tool may carry them without effect. */
const DOCUMENTATION_TAGS = new Set([
  "example",
  "deprecated",
  "see",
  "since",
  "throws",
  "exception",
  "remarks",
  "privateRemarks",
  "link",
  "author",
  "version",
  "todo",
  "beta",
  "alpha",
  "public",
  "protected",
  "experimental",
  "async",
  "summary",
  "description",
  "typeParam",
  "template",
  "override",
  "virtual",
  "sealed",
  "inheritDoc",
  "defaultValue",
  "default",
  "label",
  "eventProperty",
  "decorator",
  "typedef",
  "callback",
  "type",
  "license",
  "copyright",
  "module",
  "packageDocumentation",
  "function",
  "method",
  "memberof",
  "name",
  "static",
  "instance",
  "abstract",
  "access",
  "fires",
  "listens",
  "tutorial",
  "implements",
  "augments",
  "extends",
  "class",
  "constructor",
  "hideconstructor",
  "classdesc",
  "property",
  "prop",
  "this",
]);

/** Tags that keep an export or method out of the public API (TypeDoc, API Extractor, JSDoc): such code is no tool. */
const HIDING_TAGS = ["internal", "private", "ignore", "hidden"];

/** Whether JSDoc marks a function, method or class as kept out of the public API, and so out of the tools. */
export function hiddenByTags(tags: readonly ts.JSDocTag[]): boolean {
  return tags.some((tag) => HIDING_TAGS.includes(tag.tagName.text));
}

/**
 * The tool's tags that mean nothing here, as warnings: a misspelt `@categroy` would otherwise be
 * dropped in silence. A constraint tag belongs on a parameter or property, and says so.
 */
export function unknownTags(tags: readonly ts.JSDocTag[], warn: (tag: ts.JSDocTag, message: string) => void): void {
  const known = [...DOCUMENTATION_TAGS, ...Object.keys(HINT_TAGS), "outputTypeName", ...Object.keys(META_TAGS), "param", "returns"];
  for (const tag of tags) {
    const name = tag.tagName.text;
    // `@arg`, `@argument` and `@return` are parsed as what they stand for.
    if (known.includes(name) || ts.isJSDocParameterTag(tag) || ts.isJSDocReturnTag(tag)) continue;
    if (Object.hasOwn(CONSTRAINTS, name)) warn(tag, `@${name} is ignored here: a constraint goes on the parameter or property it limits`);
    else warn(tag, `unknown tag @${name} is ignored${suggestion(name, known)}`);
  }
}

/** ` (did you mean @category?)` for a name one or two edits from a known one. */
export function suggestion(name: string, known: readonly string[], prefix = "@"): string {
  const ranked = known
    .map((candidate) => ({ candidate, distance: editDistance(name.toLowerCase(), candidate.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance);
  const [closest] = ranked;
  return closest === undefined || closest.distance > 2 ? "" : ` (did you mean ${prefix}${closest.candidate}?)`;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** The MCP annotations the hint tags and `@outputTypeName` set; undefined when none does. */
export function annotationsOf(tags: readonly ts.JSDocTag[]): Record<string, unknown> | undefined {
  const annotations: Record<string, unknown> = {};
  for (const tag of tags) {
    const name = tag.tagName.text;
    const hint = Object.hasOwn(HINT_TAGS, name) ? HINT_TAGS[name] : undefined;
    if (hint !== undefined) annotations[hint] = true;
    if (name === "outputTypeName" && commentText(tag) !== "") annotations["pmcp:outputTypeName"] = commentText(tag);
  }
  return Object.keys(annotations).length === 0 ? undefined : annotations;
}

/** Constraints a property's JSDoc may state, as typescript-json-schema reads them, with the values each takes. */
const CONSTRAINTS: Record<string, "number" | "count" | "pattern" | "format"> = {
  minimum: "number",
  maximum: "number",
  exclusiveMinimum: "number",
  exclusiveMaximum: "number",
  multipleOf: "number",
  minLength: "count",
  maxLength: "count",
  minItems: "count",
  maxItems: "count",
  pattern: "pattern",
  format: "format",
};

/**
 * The JSON Schema keywords a property's JSDoc states (`@minimum 0`, `@pattern ^[a-z]+$`), checked at
 * each call by the validation the server already does. A value the keyword cannot take is `problem`'s.
 */
export function constraintsOf(symbol: ts.Symbol, checker: ts.TypeChecker, problem: (message: string) => void): Record<string, unknown> {
  const constraints: Record<string, unknown> = {};
  for (const tag of symbol.getJsDocTags(checker)) {
    const kind = Object.hasOwn(CONSTRAINTS, tag.name) ? CONSTRAINTS[tag.name] : undefined;
    if (kind === undefined) continue;
    const text = ts.displayPartsToString(tag.text).trim();
    const value = kind === "number" || kind === "count" ? decimalNumber(text) : text;
    const wrong =
      typeof value === "number"
        ? kind === "count" && !(Number.isSafeInteger(value) && value >= 0)
        : value === undefined ||
          value === "" ||
          (kind === "pattern" && !compiles(value)) ||
          (kind === "format" && !stringFormats().includes(value));
    if (wrong) problem(`@${tag.name} ${JSON.stringify(text)}: ${expectation(kind, text)}`);
    else constraints[tag.name] = value;
  }
  return constraints;
}

/** What a constraint tag takes, said when its value is not that; the closest format only then computed. */
function expectation(kind: (typeof CONSTRAINTS)[string], text: string): string {
  if (kind === "format") return `validation checks strings against no such format${suggestion(text, stringFormats(), "")}`;
  const expected = {
    number: "a number",
    count: "a whole number from 0",
    pattern: "a regular expression that can be matched in linear time (no lookaround, no backreference)",
  }[kind];
  return `${expected} is expected`;
}

/**
 * The formats validation checks strings against: not ajv-formats' `password` and `binary`, which
 * pass every string, nor the numeric ones (`int32`, `float`, …), which no string is checked by.
 */
function stringFormats(): string[] {
  const unchecked = ["password", "binary", "int32", "int64", "float", "double"];
  return knownFormats().filter((format) => !unchecked.includes(format));
}
