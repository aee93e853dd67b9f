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
