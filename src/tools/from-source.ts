import { existsSync, statSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { PmcpError } from "../errors.js";
import type { ManifestTool, ToolManifest } from "../server/manifest.js";
import { annotationsOf, documentation, HINT_KEYS, hiddenByTags, jsDocTags, returnsText, toolMetaOf, unknownTags } from "./jsdoc.js";
import type { Observations } from "./observations.js";
import { RecordingHost } from "./recording-host.js";
import { diagnosticProblem, displayPath, problemAt, type SourceProblem } from "./source-problems.js";
import { inputOf, outputSchemaOf, type Walk } from "./type-schema.js";
import ts from "./typescript.cjs";

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
  /** What the class's JSDoc tags give each of its methods: hints (unless the method gives its own) and tool tags. */
  fromClass?: { annotations: Record<string, unknown> | undefined; meta: Record<string, unknown> | undefined };
}

/** An exported class with async methods. */
interface ToolClass {
  name: string;
  symbol: ts.Symbol;
  declaration: ts.ClassDeclaration;
  methods: ToolSource[];
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
  if (statSync(path).isDirectory())
    throw new PmcpError("INVALID_ARGUMENT", `${file}: a folder; name the module whose exports are the tools`);
  const recorder = new RecordingHost();
  const { options, problems } = compilerOptions(path, recorder);
  const program = ts.createProgram({ rootNames: [path], options, host: recorder.compilerHost(options) });
  const source = program.getSourceFile(path);
  // JavaScript without `allowJs` is no part of the program.
  if (source === undefined)
    throw new PmcpError("INVALID_ARGUMENT", `${file}: not a TypeScript module (JavaScript needs allowJs in its tsconfig.json)`);
  const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  const errors = diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error);
  problems.push(...errors.map((error) => diagnosticProblem(error, path)));

  const walk: Walk = { program, checker: program.getTypeChecker(), problems, stack: [], paramDocs: new Map(), defaults: new Map() };
  const warnings: SourceProblem[] = [];
  const moduleSymbol = walk.checker.getSymbolAtLocation(source);
  const exported = moduleSymbol === undefined ? [] : walk.checker.getExportsOfModule(moduleSymbol);
  // A default export has no name to give its tool.
  const named = exported.filter((symbol) => symbol.name !== "default");
  const classes = named.flatMap((symbol) => toolClass(symbol.name, resolveAlias(symbol, walk.checker), walk.checker));
  // A class's factory builds the instance its methods run on; it is not a tool, even when async.
  const factories = new Set(classes.map((found) => factoryName(found.name)));
  const sources: ToolSource[] = [
    ...classes.flatMap((found) => builtMethods(found, named, walk, warnings)),
    ...named.flatMap((symbol) => {
      const target = resolveAlias(symbol, walk.checker);
      const declaration = factories.has(symbol.name) || target.flags & ts.SymbolFlags.Class ? undefined : functionOf(target);
      return declaration === undefined ? [] : [{ name: symbol.name, symbol: target, declaration }];
    }),
  ];
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
  return {
    manifest: { version: 1, source: displayPath(path), tools },
    problems: inSourceOrder(problems),
    warnings: inSourceOrder(warnings),
    observations: recorder.observations(),
  };
}

/** Problems as a compiler lists them, by file, line and column, whatever order they were found in. */
function inSourceOrder(problems: readonly SourceProblem[]): SourceProblem[] {
  return [...problems].sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
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
  const { name, symbol, declaration, owner, fromClass } = found;
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
  if (hiddenByTags(tags)) return undefined;
  const problem = (tag: ts.JSDocTag, message: string) => walk.problems.push(problemAt(tag, `${label}: ${message}`));
  const warn = (tag: ts.JSDocTag, message: string) => warnings.push(problemAt(tag, `${label}: ${message}`));
  const input = inputOf(declaration, walk, label, tags, warn);
  if (input === undefined) return undefined;
  const returns = returnsText(tags);
  const outputSchema = outputSchemaOf(awaited, declaration, walk, label);
  const documented = documentation(symbol, checker);
  // Without an output schema, what `@returns` says still reaches the model, in the description.
  const description =
    outputSchema === undefined && returns !== "" ? [documented, `Returns: ${returns}`].filter(Boolean).join("\n\n") : documented;
  const own = annotationsOf(tags);
  // A method's own hints replace the class's: `@destructive` on one method of a `@readOnly` class.
  const hinted = own !== undefined && HINT_KEYS.some((key) => Object.hasOwn(own, key));
  const classHints = hinted ? undefined : fromClass?.annotations;
  const annotations = classHints === undefined ? own : { ...classHints, ...own };
  const ownMeta = toolMetaOf(tags, problem, warn);
  const meta = fromClass?.meta === undefined ? ownMeta : { ...fromClass.meta, ...ownMeta };
  unknownTags(tags, warn);
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

/** An exported class and its public async methods; none when it has no such method (a data class, an error class). */
function toolClass(name: string, symbol: ts.Symbol, checker: ts.TypeChecker): ToolClass[] {
  const declaration = symbol.flags & ts.SymbolFlags.Class ? symbol.valueDeclaration : undefined;
  if (declaration === undefined || !ts.isClassDeclaration(declaration) || hiddenByTags(ts.getJSDocTags(declaration))) return [];
  const methods = checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(symbol)).flatMap((property) => {
    const member = property.valueDeclaration;
    const method = member === undefined || isHidden(member) ? undefined : methodOf(member);
    const async = method !== undefined && !hiddenByTags(jsDocTags(method)) && asyncSignatures(property, method, checker) !== undefined;
    return async ? [{ name: property.name, symbol: property, declaration: method }] : [];
  });
  return methods.length === 0 ? [] : [{ name, symbol, declaration, methods }];
}

/**
 * The methods of a class, each a tool run by the module's one instance: built by the exported
 * factory `create<Class>` when there is one, else by `new Class()`. Either must be callable with no
 * arguments, and the factory must return the class (or a promise of it); otherwise no method is a
 * tool, and the reason is a problem. The class's JSDoc tags are checked here, once.
 */
function builtMethods(found: ToolClass, exported: readonly ts.Symbol[], walk: Walk, warnings: SourceProblem[]): ToolSource[] {
  const { checker } = walk;
  const factory = exported.find((candidate) => candidate.name === factoryName(found.name));
  const reason = factory === undefined ? constructionProblem(found, checker) : factoryProblem(factory, found, checker);
  if (reason !== undefined) {
    walk.problems.push(problemAt(factory?.valueDeclaration ?? found.declaration, reason));
    return [];
  }
  const classTags = ts.getJSDocTags(found.declaration);
  const warn = (tag: ts.JSDocTag, message: string) => warnings.push(problemAt(tag, `${found.name}: ${message}`));
  const meta = toolMetaOf(classTags, (tag, message) => walk.problems.push(problemAt(tag, `${found.name}: ${message}`)), warn);
  for (const tag of classTags.filter((candidate) => candidate.tagName.text === "outputTypeName")) {
    warn(tag, "@outputTypeName names one tool's result: it goes on the method");
  }
  unknownTags(
    classTags.filter((tag) => tag.tagName.text !== "outputTypeName"),
    warn,
  );
  const owner: NonNullable<ManifestTool["class"]> =
    factory === undefined ? { name: found.name } : { name: found.name, factory: factory.name };
  const annotations = annotationsOf(classTags.filter((tag) => tag.tagName.text !== "outputTypeName"));
  return found.methods.map((method) => ({ ...method, owner, fromClass: { annotations, meta } }));
}

/** Why `new Class()` cannot make the instance; undefined when it can. */
function constructionProblem(found: ToolClass, checker: ts.TypeChecker): string | undefined {
  const advice = `export a factory \`${factoryName(found.name)}()\` that returns the instance`;
  if (ts.getCombinedModifierFlags(found.declaration) & ts.ModifierFlags.Abstract) {
    return `${found.name}: an abstract class cannot be constructed: ${advice}`;
  }
  const constructors = checker.getSignaturesOfType(checker.getTypeOfSymbol(found.symbol), ts.SignatureKind.Construct);
  return constructors.some((signature) => callableWithoutArguments(signature, checker))
    ? undefined
    : `${found.name}: its constructor takes arguments: ${advice}`;
}

/** Why the factory cannot make the instance; undefined when it can. */
function factoryProblem(factory: ts.Symbol, found: ToolClass, checker: ts.TypeChecker): string | undefined {
  const target = resolveAlias(factory, checker);
  const signatures = checker.getSignaturesOfType(checker.getTypeOfSymbol(target), ts.SignatureKind.Call);
  const at = `${factory.name}, the factory of ${found.name},`;
  if (signatures.length === 0) return `${at} is not a function`;
  const signature = signatures.find((candidate) => callableWithoutArguments(candidate, checker));
  if (signature === undefined) return `${at} takes arguments: it is called with none`;
  const returned = checker.getReturnTypeOfSignature(signature);
  const instance = checker.getAwaitedType(returned) ?? returned;
  return checker.isTypeAssignableTo(instance, checker.getDeclaredTypeOfSymbol(found.symbol))
    ? undefined
    : `${at} returns ${checker.typeToString(returned)}, not ${found.name} or a promise of one`;
}

function callableWithoutArguments(signature: ts.Signature, checker: ts.TypeChecker): boolean {
  return signature.getParameters().every((parameter) => {
    const node = parameter.valueDeclaration;
    return node !== undefined && ts.isParameter(node) && (node.dotDotDotToken !== undefined || checker.isOptionalParameter(node));
  });
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
