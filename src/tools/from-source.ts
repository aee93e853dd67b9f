import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import ts from "typescript";
import { PmcpError } from "../errors.js";
import type { ManifestTool, ToolManifest } from "../server/manifest.js";
import { annotationsOf, documentation, jsDocTags, paramDocs, returnsText, toolMetaOf, unknownTags } from "./jsdoc.js";
import type { Observations } from "./observations.js";
import { RecordingHost } from "./recording-host.js";
import { diagnosticProblem, displayPath, problemAt, type SourceProblem } from "./source-problems.js";
import { inputOf, literalOf, outputSchemaOf, type Walk } from "./type-schema.js";

export interface FromSourceResult {
  manifest: ToolManifest;
  problems: SourceProblem[];
  /** What the manifest does not depend on but the author should know: tags that mean nothing here. */
  warnings: SourceProblem[];
  /** What the compile asked the file system and was answered, but about TypeScript's own libs; undefined when the files changed during the compile. */
  observations: Observations | undefined;
}

/** Where a tool's code is: an exported function, or a method of an exported class. */
interface ToolSource {
  name: string;
  symbol: ts.Symbol;
  declaration: ts.SignatureDeclaration;
  owner?: ManifestTool["class"];
}

/**
 * Derives MCP tool definitions from a module's exported async functions (function declarations
 * and `const` arrow or function expressions) and the async methods of its exported classes, using
 * the module's nearest tsconfig.json. Compile errors and every construct without a JSON Schema
 * form are problems; the tool is still emitted with `{}` in that place. Tools that cannot be served
 * at all (a rest parameter, overloads, a taken name, a class that cannot be constructed) are
 * skipped. A manifest with problems is not fit to serve; this function only reports, the caller
 * decides.
 */
export function toolsFromSource(file: string): FromSourceResult {
  const path = resolve(file);
  if (!existsSync(path)) throw new PmcpError("NOT_FOUND", `${file}: no such file`);
  const recorder = new RecordingHost();
  const { options, problems } = compilerOptions(path, recorder);
  const program = ts.createProgram({ rootNames: [path], options, host: recorder.compilerHost(options) });
  const source = program.getSourceFile(path);
  if (source === undefined) throw new PmcpError("INVALID_ARGUMENT", `${file}: not a TypeScript or JavaScript module`);
  const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  const errors = diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error);
  problems.push(...errors.map((error) => diagnosticProblem(error, path)));

  const walk: Walk = { program, checker: program.getTypeChecker(), problems, stack: [], paramDocs: new Map(), defaults: new Map() };
  const warnings: SourceProblem[] = [];
  const moduleSymbol = walk.checker.getSymbolAtLocation(source);
  const exported = moduleSymbol === undefined ? [] : walk.checker.getExportsOfModule(moduleSymbol);
  const isClass = (symbol: ts.Symbol) => (resolveAlias(symbol, walk.checker).flags & ts.SymbolFlags.Class) !== 0;
  // A class's factory builds the instance its methods run on; it is not a tool, even when async.
  const factories = new Set(exported.filter(isClass).map((symbol) => factoryName(symbol.name)));
  const sources = exported.flatMap((symbol) => {
    // A default export has no name to give its tool.
    if (symbol.name === "default" || factories.has(symbol.name)) return [];
    const target = resolveAlias(symbol, walk.checker);
    if (isClass(symbol)) return methodsOf(symbol.name, target, exported, walk);
    const declaration = functionOf(target);
    return declaration === undefined ? [] : [{ name: symbol.name, symbol: target, declaration }];
  });
  // The checker lists exports in binding order (declarations before `const`s); tools follow the source.
  sources.sort((a, b) => sourceOrder(a.declaration, b.declaration));
  const tools: ManifestTool[] = [];
  const owners = new Map<string, string>();
  for (const found of sources) {
    const tool = toolOf(found, walk, warnings);
    if (tool === undefined) continue;
    const label = found.owner === undefined ? tool.function : `${found.owner.name}.${tool.function}`;
    const owner = owners.get(tool.name);
    if (owner !== undefined) {
      problems.push(problemAt(found.declaration, `${label}: tool name "${tool.name}" is already taken by ${owner}`));
      continue;
    }
    owners.set(tool.name, label);
    tools.push(tool);
  }
  return { manifest: { version: 1, source: displayPath(path), tools }, problems, warnings, observations: recorder.observations() };
}

/** `getStockLevel` → `get_stock_level`, `parseHTTPHeader` → `parse_http_header`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1_$2")
    .toLowerCase();
}

/**
 * The project's own options, so path aliases and libs resolve as they do in its build;
 * `strictNullChecks` is forced because without it `| null` vanishes from every type.
 */
function compilerOptions(path: string, recorder: RecordingHost): { options: ts.CompilerOptions; problems: SourceProblem[] } {
  const forced: ts.CompilerOptions = { noEmit: true, strictNullChecks: true };
  const defaults: ts.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
  };
  const configPath = ts.findConfigFile(dirname(path), recorder.fileExists);
  if (configPath === undefined) return { options: { ...defaults, ...forced }, problems: [] };
  const read = ts.readConfigFile(configPath, recorder.readFile);
  if (read.error !== undefined) return { options: { ...defaults, ...forced }, problems: [diagnosticProblem(read.error, configPath)] };
  const parsed = ts.parseJsonConfigFileContent(read.config, recorder.configHost(), dirname(configPath), undefined, configPath);
  // The config's own file list does not matter here ("no inputs found" is 18003): only `path` is compiled.
  const errors = parsed.errors.filter((error) => error.category === ts.DiagnosticCategory.Error && error.code !== 18003);
  return {
    options: { ...parsed.options, ...forced },
    problems: errors.map((error) => diagnosticProblem(error, configPath)),
  };
}

/** A tool from a function or method that returns a promise; undefined for other functions and for skipped tools. */
function toolOf(found: ToolSource, walk: Walk, warnings: SourceProblem[]): ManifestTool | undefined {
  const { checker } = walk;
  const { name, symbol, declaration, owner } = found;
  const called = asyncSignatures(symbol, declaration, checker);
  // Only functions that return a promise are tools; other exports are the module's helpers.
  if (called === undefined) return undefined;
  const { signatures, awaited } = called;
  const label = owner === undefined ? name : `${owner.name}.${name}`;
  if (signatures.length > 1) {
    walk.problems.push(problemAt(declaration, `${label}: overloaded functions are not supported: a tool has one signature`));
    return undefined;
  }
  const tags = jsDocTags(declaration);
  const [first] = declaration.parameters;
  const input = inputOf(declaration, { ...walk, paramDocs: paramDocs(tags, first), defaults: bindingDefaults(first, checker) }, label);
  if (input === undefined) return undefined;
  const returns = returnsText(tags);
  const outputSchema = outputSchemaOf(awaited, declaration, walk, label);
  const documented = documentation(symbol, checker);
  // Without an output schema, what `@returns` says still reaches the model, in the description.
  const description =
    outputSchema === undefined && returns !== "" ? [documented, `Returns: ${returns}`].filter(Boolean).join("\n\n") : documented;
  const annotations = annotationsOf(tags);
  const meta = toolMetaOf(tags, (tag, message) => walk.problems.push(problemAt(tag, `${label}: ${message}`)));
  unknownTags(tags, (tag, message) => warnings.push(problemAt(tag, `${label}: ${message}`)));
  return {
    name: snakeCase(name),
    function: name,
    ...(owner === undefined ? {} : { class: owner }),
    ...(input.parameters === undefined ? {} : { parameters: input.parameters }),
    ...(description === "" ? {} : { description }),
    inputSchema: input.inputSchema,
    ...(outputSchema === undefined ? {} : { outputSchema: returns === "" ? outputSchema : { description: returns, ...outputSchema } }),
    ...(annotations === undefined ? {} : { annotations }),
    ...(meta === undefined ? {} : { _meta: meta }),
  };
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

/**
 * The async methods of an exported class, each a tool run by the module's one instance: built by
 * the exported factory `create<Class>` when there is one, else by `new Class()`, which must then
 * take no arguments. Private, protected and static members are not tools.
 */
function methodsOf(exportName: string, symbol: ts.Symbol, exported: readonly ts.Symbol[], walk: Walk): ToolSource[] {
  const { checker } = walk;
  const declaration = symbol.valueDeclaration;
  if (declaration === undefined || !ts.isClassDeclaration(declaration)) return [];
  const factory = exported.find((candidate) => candidate.name === factoryName(exportName));
  const owner: NonNullable<ManifestTool["class"]> =
    factory === undefined ? { name: exportName } : { name: exportName, factory: factory.name };
  const methods = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol)).flatMap((property) => {
    const member = property.valueDeclaration;
    const method = member === undefined ? undefined : methodOf(member);
    return method === undefined || isHidden(member!) ? [] : [{ name: property.name, symbol: property, declaration: method, owner }];
  });
  const tools = methods.filter(({ symbol: method, declaration: node }) => asyncSignatures(method, node, checker) !== undefined);
  if (tools.length === 0 || factory !== undefined) return tools;
  const abstract = ts.getCombinedModifierFlags(declaration) & ts.ModifierFlags.Abstract;
  const constructors = checker.getSignaturesOfType(checker.getTypeOfSymbol(symbol), ts.SignatureKind.Construct);
  const callable = (signature: ts.Signature) =>
    signature.getParameters().every((parameter) => {
      const node = parameter.valueDeclaration;
      return node !== undefined && ts.isParameter(node) && checker.isOptionalParameter(node);
    });
  if (abstract || !constructors.some(callable)) {
    walk.problems.push(
      problemAt(
        declaration,
        `${exportName}: ${abstract ? "an abstract class cannot be constructed" : "its constructor takes arguments"}: export a factory \`${factoryName(exportName)}()\` that returns the instance`,
      ),
    );
    return [];
  }
  return tools;
}

/** The factory an exported class may have: `ReadTools` → `createReadTools`. */
function factoryName(className: string): string {
  return `create${className}`;
}

function methodOf(member: ts.Declaration): ts.SignatureDeclaration | undefined {
  if (ts.isMethodDeclaration(member)) return member;
  const initializer = ts.isPropertyDeclaration(member) ? member.initializer : undefined;
  return initializer !== undefined && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer)) ? initializer : undefined;
}

function isHidden(member: ts.Declaration): boolean {
  const flags = ts.getCombinedModifierFlags(member);
  const name = ts.getNameOfDeclaration(member);
  return (
    (flags & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected | ts.ModifierFlags.Static)) !== 0 ||
    (name !== undefined && ts.isPrivateIdentifier(name))
  );
}

/** A function's or method's call signatures and what its promise resolves to; undefined when it returns no promise. */
function asyncSignatures(
  symbol: ts.Symbol,
  declaration: ts.Node,
  checker: ts.TypeChecker,
): { signatures: readonly ts.Signature[]; awaited: ts.Type } | undefined {
  const signatures = checker.getSignaturesOfType(checker.getTypeOfSymbolAtLocation(symbol, declaration), ts.SignatureKind.Call);
  const [signature] = signatures;
  if (signature === undefined) return undefined;
  const returnType = checker.getReturnTypeOfSignature(signature);
  const awaited = checker.getAwaitedType(returnType);
  return awaited === undefined || awaited === returnType ? undefined : { signatures, awaited };
}

function functionOf(symbol: ts.Symbol): ts.SignatureDeclaration | undefined {
  const declaration = symbol.valueDeclaration;
  if (declaration === undefined) return undefined;
  if (ts.isFunctionDeclaration(declaration)) return declaration;
  const initializer = ts.isVariableDeclaration(declaration) ? declaration.initializer : undefined;
  if (initializer !== undefined && (ts.isArrowFunction(initializer) || ts.isFunctionExpression(initializer))) return initializer;
  return undefined;
}

/** `export { f }` and `export * from` give aliases; the function is what they point at. */
function resolveAlias(symbol: ts.Symbol, checker: ts.TypeChecker): ts.Symbol {
  return symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
}

function sourceOrder(a: ts.Node, b: ts.Node): number {
  const byFile = a.getSourceFile().fileName.localeCompare(b.getSourceFile().fileName);
  return byFile !== 0 ? byFile : a.pos - b.pos;
}
