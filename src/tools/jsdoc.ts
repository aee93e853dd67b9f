import ts from "typescript";
import { TOOL_TAG_KEYS } from "../bundle/tool-tags.js";

/** JSDoc tags that set an MCP hint to true. */
const HINT_TAGS: Readonly<Record<string, string>> = {
  readOnly: "readOnlyHint",
  destructive: "destructiveHint",
  idempotent: "idempotentHint",
  openWorld: "openWorldHint",
};

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

/**
 * `@param args.sku text` and `@param sku text` both describe the property `sku`; a bare
 * `@param args` describes the whole parameter, which the tool description already does.
 */
export function paramDocs(tags: readonly ts.JSDocTag[], parameter: ts.ParameterDeclaration | undefined): Map<string, string> {
  const parameterName = parameter !== undefined && ts.isIdentifier(parameter.name) ? parameter.name.text : undefined;
  const docs = new Map<string, string>();
  for (const tag of tags) {
    if (!ts.isJSDocParameterTag(tag)) continue;
    const text = commentText(tag);
    const segments = entityName(tag.name).split(".");
    const path = segments.length > 1 ? segments.slice(1) : segments;
    if (text !== "" && !(segments.length === 1 && segments[0] === parameterName)) docs.set(path.join("."), text);
  }
  return docs;
}

function entityName(name: ts.EntityName): string {
  return ts.isIdentifier(name) ? name.text : `${entityName(name.left)}.${name.right.text}`;
}

/** A tag's text without the optional `- ` JSDoc puts between a name and its description. */
function commentText(tag: ts.JSDocTag): string {
  return withoutDash(ts.getTextOfJSDocComment(tag.comment) ?? "");
}

function withoutDash(text: string): string {
  return text.replace(/^-\s*/, "").trim();
}

/** A positional parameter's description: its `@param` text and its own doc comment, as the checker joins them. */
export function parameterDocumentation(symbol: ts.Symbol, checker: ts.TypeChecker): string {
  return withoutDash(documentation(symbol, checker));
}

/** The text of a tool's `@returns` (or `@return`); `""` without one. */
export function returnsText(tags: readonly ts.JSDocTag[]): string {
  const tag = tags.find((candidate) => candidate.tagName.text === "returns" || candidate.tagName.text === "return");
  return tag === undefined ? "" : commentText(tag);
}

/** Seed 002's tags and the `_meta` key each is kept under; `@popularity` takes a number, the others a name. */
const META_TAGS: Readonly<Record<string, { key: string; number: boolean }>> = {
  category: { key: TOOL_TAG_KEYS.category, number: false },
  phase: { key: TOOL_TAG_KEYS.phase, number: false },
  popularity: { key: TOOL_TAG_KEYS.popularity, number: true },
  rateLimit: { key: TOOL_TAG_KEYS.rateLimit, number: false },
};

/** The `_meta` of a tool's seed tags; undefined without any. A tag without a value it can take is `problem`'s. */
export function toolMetaOf(
  tags: readonly ts.JSDocTag[],
  problem: (tag: ts.JSDocTag, message: string) => void,
): Record<string, unknown> | undefined {
  const meta: Record<string, unknown> = {};
  for (const tag of tags) {
    const name = tag.tagName.text;
    const known = Object.hasOwn(META_TAGS, name) ? META_TAGS[name] : undefined;
    if (known === undefined) continue;
    const text = commentText(tag);
    const value = known.number ? Number(text) : text;
    if (text === "" || (typeof value === "number" && !Number.isFinite(value)))
      problem(tag, `@${name} ${JSON.stringify(text)}: ${known.number ? "a number" : "a name"} is expected`);
    else meta[known.key] = value;
  }
  return Object.keys(meta).length === 0 ? undefined : meta;
}

/** Tags JSDoc and TSDoc define for documentation alone: a tool may carry them without effect. */
const DOCUMENTATION_TAGS = new Set([
  "param",
  "returns",
  "return",
  "example",
  "deprecated",
  "see",
  "since",
  "throws",
  "remarks",
  "privateRemarks",
  "internal",
  "link",
  "author",
  "version",
  "todo",
  "beta",
  "alpha",
  "public",
  "experimental",
  "async",
  "summary",
  "description",
  "typeParam",
  "template",
]);

/**
 * The tool's tags that mean nothing here, as warnings: a misspelt `@categroy` would otherwise be
 * dropped in silence. A constraint tag belongs on a parameter or property, and says so.
 */
export function unknownTags(tags: readonly ts.JSDocTag[], warn: (tag: ts.JSDocTag, message: string) => void): void {
  const known = new Set([...DOCUMENTATION_TAGS, ...Object.keys(HINT_TAGS), "outputTypeName", ...Object.keys(META_TAGS)]);
  for (const tag of tags) {
    const name = tag.tagName.text;
    if (known.has(name)) continue;
    if (Object.hasOwn(CONSTRAINTS, name)) warn(tag, `@${name} is ignored here: a constraint goes on the parameter or property it limits`);
    else warn(tag, `unknown tag @${name} is ignored${suggestion(name, [...known])}`);
  }
}

/** ` (did you mean @category?)` for a tag one or two edits from a known one. */
function suggestion(name: string, known: readonly string[]): string {
  const ranked = known
    .map((candidate) => ({ candidate, distance: editDistance(name.toLowerCase(), candidate.toLowerCase()) }))
    .sort((a, b) => a.distance - b.distance);
  const [closest] = ranked;
  return closest === undefined || closest.distance > 2 ? "" : ` (did you mean @${closest.candidate}?)`;
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
const CONSTRAINTS: Record<string, "number" | "count" | "pattern" | "string"> = {
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
  format: "string",
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
    const value = kind === "number" || kind === "count" ? Number(text) : text;
    const wrong =
      typeof value === "number"
        ? text === "" || !Number.isFinite(value) || (kind === "count" && !(Number.isSafeInteger(value) && value >= 0))
        : text === "" || (kind === "pattern" && !compiles(text));
    if (wrong)
      problem(
        `@${tag.name} ${JSON.stringify(text)}: ${kind === "count" ? "a whole number from 0" : kind === "number" ? "a number" : kind === "pattern" ? "a regular expression" : "a value"} is expected`,
      );
    else constraints[tag.name] = value;
  }
  return constraints;
}

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern, "u");
    return true;
  } catch {
    return false;
  }
}
