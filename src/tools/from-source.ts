import { existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import ts from "typescript";
import { PmcpError } from "../errors.js";
import type { ManifestTool, ToolManifest } from "../server/manifest.js";
import { annotationsOf, documentation, jsDocTags, paramDocs } from "./jsdoc.js";
import { diagnosticProblem, displayPath, problemAt, type SourceProblem } from "./source-problems.js";
import { inputSchemaOf, outputSchemaOf, type Walk } from "./type-schema.js";

export interface FromSourceResult {
  manifest: ToolManifest;
  problems: SourceProblem[];
  /** Absolute paths of the files read but TypeScript's own libs: the module, what it imports, the tsconfig.json and the configs it extends. */
  files: string[];
}

/**
 * Derives MCP tool definitions from a module's exported async functions (function
 * declarations and `const` arrow or function expressions), using the module's nearest
 * tsconfig.json. Compile errors and every construct without a JSON Schema form are problems;
 * the tool is still emitted with `{}` in that place. Tools that cannot be served at all (more
 * than one parameter, a non-object parameter, overloads, a taken name) are skipped. A manifest
 * with problems is not fit to serve; this function only reports, the caller decides.
 */
export function toolsFromSource(file: string): FromSourceResult {
  const path = resolve(file);
  if (!existsSync(path)) throw new PmcpError("NOT_FOUND", `${file}: no such file`);
  const { options, problems, configFiles } = compilerOptions(path);
  const program = ts.createProgram({ rootNames: [path], options });
  const source = program.getSourceFile(path);
  if (source === undefined) throw new PmcpError("INVALID_ARGUMENT", `${file}: not a TypeScript or JavaScript module`);
  const diagnostics = [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
  const errors = diagnostics.filter((diagnostic) => diagnostic.category === ts.DiagnosticCategory.Error);
  problems.push(...errors.map((error) => diagnosticProblem(error, path)));

  const walk: Walk = { program, checker: program.getTypeChecker(), problems, stack: [], paramDocs: new Map() };
  const moduleSymbol = walk.checker.getSymbolAtLocation(source);
  const exported = moduleSymbol === undefined ? [] : walk.checker.getExportsOfModule(moduleSymbol);
  const functions = exported.flatMap((symbol) => {
    // A default export has no name to give its tool.
    const declaration = symbol.name === "default" ? undefined : functionOf(resolveAlias(symbol, walk.checker));
    return declaration === undefined ? [] : [{ symbol, declaration }];
  });
  // The checker lists exports in binding order (declarations before `const`s); tools follow the source.
  functions.sort((a, b) => sourceOrder(a.declaration, b.declaration));
  const tools: ManifestTool[] = [];
  const owners = new Map<string, string>();
  for (const { symbol, declaration } of functions) {
    const tool = toolFromExport(symbol, declaration, walk);
    if (tool === undefined) continue;
    const owner = owners.get(tool.name);
    if (owner !== undefined) {
      problems.push(problemAt(declaration, `${tool.function}: tool name "${tool.name}" is already taken by ${owner}`));
      continue;
    }
    owners.set(tool.name, tool.function);
    tools.push(tool);
  }
  const files = program.getSourceFiles().filter((file) => !program.isSourceFileDefaultLibrary(file));
  return {
    manifest: { version: 1, source: displayPath(path), tools },
    problems,
    files: [...configFiles, ...files.map((file) => file.fileName)],
  };
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
function compilerOptions(path: string): { options: ts.CompilerOptions; problems: SourceProblem[]; configFiles: string[] } {
  const forced: ts.CompilerOptions = { noEmit: true, strictNullChecks: true };
  const defaults: ts.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
  };
  const configPath = ts.findConfigFile(dirname(path), ts.sys.fileExists);
  if (configPath === undefined) return { options: { ...defaults, ...forced }, problems: [], configFiles: [] };
  const read = ts.readConfigFile(configPath, ts.sys.readFile);
  if (read.error !== undefined)
    return { options: { ...defaults, ...forced }, problems: [diagnosticProblem(read.error, configPath)], configFiles: [configPath] };
  // The parse records each config `extends` reaches in this cache: the only public list of them.
  const extended = new Map<string, ts.ExtendedConfigCacheEntry>();
  const parsed = ts.parseJsonConfigFileContent(
    read.config,
    ts.sys,
    dirname(configPath),
    undefined,
    configPath,
    undefined,
    undefined,
    extended,
  );
  // The config's own file list does not matter here ("no inputs found" is 18003): only `path` is compiled.
  const errors = parsed.errors.filter((error) => error.category === ts.DiagnosticCategory.Error && error.code !== 18003);
  return {
    options: { ...parsed.options, ...forced },
    problems: errors.map((error) => diagnosticProblem(error, configPath)),
    configFiles: [configPath, ...[...extended.values()].map((entry) => entry.extendedResult.fileName)],
  };
}

/** A tool from an exported function that returns a promise; undefined for other functions and for skipped tools. */
function toolFromExport(exported: ts.Symbol, declaration: ts.SignatureDeclaration, walk: Walk): ManifestTool | undefined {
  const { checker } = walk;
  const symbol = resolveAlias(exported, checker);
  const signatures = checker.getSignaturesOfType(checker.getTypeOfSymbol(symbol), ts.SignatureKind.Call);
  const signature = signatures[0];
  if (signature === undefined) return undefined;
  const returnType = checker.getReturnTypeOfSignature(signature);
  const awaited = checker.getAwaitedType(returnType);
  // Only functions that return a promise are tools; other exports are the module's helpers.
  if (awaited === undefined || awaited === returnType) return undefined;

  const name = exported.name;
  if (signatures.length > 1) {
    walk.problems.push(problemAt(declaration, `${name}: overloaded functions are not supported: a tool has one signature`));
    return undefined;
  }
  const tags = jsDocTags(declaration);
  const inputSchema = inputSchemaOf(declaration, { ...walk, paramDocs: paramDocs(tags, declaration.parameters[0]) }, name);
  if (inputSchema === undefined) return undefined;
  const outputSchema = outputSchemaOf(awaited, declaration, walk, name);
  const description = documentation(symbol, checker);
  const annotations = annotationsOf(tags);
  return {
    name: snakeCase(name),
    function: name,
    ...(description === "" ? {} : { description }),
    inputSchema,
    ...(outputSchema === undefined ? {} : { outputSchema }),
    ...(annotations === undefined ? {} : { annotations }),
  };
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
