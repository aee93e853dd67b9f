import ts from "typescript";

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

/** JSDoc of `export const f = async () => …` sits on the variable statement, not on the arrow. */
function tagHost(declaration: ts.SignatureDeclaration): ts.Node {
  return ts.isVariableDeclaration(declaration.parent) ? declaration.parent : declaration;
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
  return (ts.getTextOfJSDocComment(tag.comment) ?? "").replace(/^-\s*/, "").trim();
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
