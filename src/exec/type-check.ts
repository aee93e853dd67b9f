import { dirname, join } from "node:path";
import { PmcpError } from "../errors.js";
import ts from "../tools/typescript.cjs";
import {
  MAX_DIAGNOSTIC_BYTES,
  MAX_DIAGNOSTICS,
  PROGRAM_DIAGNOSTIC,
  type ProgramDiagnostic,
  type ProgramStatement,
  type TranspiledProgram,
} from "./check-protocol.js";
import { PROGRAM_COMPILER_OPTIONS, SNAPSHOT_REGISTRY_KEY } from "./checker-options.js";

/** Programs are written by agents, a few dozen lines; anything this large is refused unread. */
export const MAX_PROGRAM_BYTES = 100_000;

/** A program's diagnostics, the first in order of position within the bounds, and how many more there are. */
export interface CheckedProgram {
  diagnostics: ProgramDiagnostic[];
  omitted: number;
}

export interface ProgramChecker {
  /** Diagnostics of a program (the body of an async function), in strict mode; none when it may run. */
  check(code: string): CheckedProgram;
  /** The program with its types erased: the body of an async function, as a sandbox runs it. */
  transpile(code: string): TranspiledProgram;
  /**
   * Replaces the declarations (a tool's type changed), keeping the compiler and its loaded
   * libraries; throws, keeping the old ones, when the new ones do not compile. Declarations
   * another checker `compiled` already are not checked again (a third of a second for 300 tools).
   */
  updateDeclarations(text: string, options?: { compiled?: boolean }): void;
}

const DECLARATIONS_FILE = "/pmcp/clients.d.ts";
const PROGRAM_FILE = "/pmcp/program.ts";
const WRAPPER_NAME = "__program";
// The program starts on the wrapper's second line, so its columns are unchanged.
const PREFIX = `async function ${WRAPPER_NAME}() {\n`;
const SUFFIX = "\n}\n";
const PREFIX_LINES = 1;

const OPTIONS: ts.CompilerOptions = PROGRAM_COMPILER_OPTIONS;

/**
 * "Cannot find name 'process'. Do you need to install type definitions for node?" and its
 * kin: the advice does not apply to a program, which has no runtime APIs at all.
 */
const INSTALL_TYPES_HINTS = new Set([2580, 2581, 2582, 2583, 2584, 2591, 2592, 2593]);

/**
 * A TypeScript LanguageService over two in-memory files, the clients' declarations and the
 * program, created once and pre-warmed. Each check bumps the program file's version, so
 * the service reuses the library and declaration source files and nothing grows per check.
 */
export function createProgramChecker(declarations: string): ProgramChecker {
  const libDir = dirname(ts.getDefaultLibFilePath(OPTIONS));
  const files = new Map<string, { text: string; version: number }>([
    [DECLARATIONS_FILE, { text: declarations, version: 0 }],
    [PROGRAM_FILE, { text: wrap(""), version: 0 }],
  ]);
  const libraries = new Map<string, string | undefined>();
  const read = (path: string): string | undefined => {
    const file = files.get(path);
    if (file !== undefined) return file.text;
    if (!libraries.has(path)) libraries.set(path, ts.sys.readFile(path));
    return libraries.get(path);
  };
  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => OPTIONS,
    getScriptFileNames: () => [DECLARATIONS_FILE, PROGRAM_FILE],
    getScriptVersion: (path) => String(files.get(path)?.version ?? 0),
    getScriptSnapshot: (path) => {
      const text = read(path);
      return text === undefined ? undefined : ts.ScriptSnapshot.fromString(text);
    },
    getCurrentDirectory: () => "/pmcp",
    getDefaultLibFileName: (options) => join(libDir, ts.getDefaultLibFileName(options)),
    fileExists: (path) => read(path) !== undefined,
    readFile: read,
  };
  const service = ts.createLanguageService(host, documentRegistry());
  const update = (path: string, text: string) => {
    const file = files.get(path)!;
    // The same text keeps its version, so the service reuses the program it has.
    if (file.text === text) return;
    file.text = text;
    file.version++;
  };

  const checkDeclarations = () => {
    // Declarations come from our own generator; an error there is a bug, never the program's.
    const problems = [...service.getSyntacticDiagnostics(DECLARATIONS_FILE), ...service.getSemanticDiagnostics(DECLARATIONS_FILE)];
    if (problems.length > 0) {
      const first = problems[0]!;
      throw new PmcpError(
        "INVALID_INPUT",
        `the clients' declarations do not compile: ${ts.flattenDiagnosticMessageText(first.messageText, " ")} (TS${first.code})`,
      );
    }
  };

  const checker: ProgramChecker = {
    check(code) {
      const refused = refuseUnread(code);
      if (refused !== undefined) return { diagnostics: [refused], omitted: 0 };
      update(PROGRAM_FILE, wrap(code));
      const program = service.getProgram();
      const source = program?.getSourceFile(PROGRAM_FILE);
      if (program === undefined || source === undefined) throw new Error("the program file is not part of its own compilation");
      const own = forbidden(source);
      const typeChecker = program.getTypeChecker();
      const found = [...service.getSyntacticDiagnostics(PROGRAM_FILE), ...service.getSemanticDiagnostics(PROGRAM_FILE)]
        // A forbidden construct is reported once, with our message.
        .filter(({ start }) => start === undefined || !own.some((problem) => start >= problem.start && start < problem.end))
        .map(
          (diagnostic): Found => ({
            start: diagnostic.start ?? PREFIX.length,
            code: diagnostic.code,
            message: () => messageOf(diagnostic, source, typeChecker, program),
          }),
        );
      const listed = own.map((problem): Found => ({ start: problem.start, code: problem.code, message: () => problem.message }));
      return bounded(
        [...listed, ...found].sort((a, b) => a.start - b.start),
        source,
      );
    },
    transpile(code) {
      const refused = refuseUnread(code);
      if (refused !== undefined) throw new PmcpError("INVALID_INPUT", refused.message);
      update(PROGRAM_FILE, wrap(code));
      const source = service.getProgram()?.getSourceFile(PROGRAM_FILE);
      const forbiddenHere = source === undefined ? undefined : forbidden(source)[0];
      if (forbiddenHere !== undefined) throw new PmcpError("INVALID_INPUT", forbiddenHere.message);
      const emitted = service.getEmitOutput(PROGRAM_FILE).outputFiles;
      const output = emitted.find((file) => file.name.endsWith(".js"))?.text;
      const map = emitted.find((file) => file.name.endsWith(".js.map"))?.text;
      if (output === undefined || map === undefined) throw new Error("the program emitted no JavaScript");
      // The whole emit runs, then calls the wrapper: what TypeScript puts before it ("use strict", the
      // helpers of decorators) is part of the program, and the emit's lines are the ones that run.
      return {
        code: `${output}\nreturn ${WRAPPER_NAME}();\n`,
        sourceMap: map,
        statements: source === undefined ? [] : statementsOf(source),
      };
    },
    updateDeclarations(text, options = {}) {
      const previous = files.get(DECLARATIONS_FILE)!.text;
      update(DECLARATIONS_FILE, text);
      if (options.compiled === true) return;
      try {
        checkDeclarations();
      } catch (error) {
        // Programs keep being checked against the last declarations that compiled.
        update(DECLARATIONS_FILE, previous);
        throw error;
      }
    },
  };
  // Pre-warm: load the library, check the declarations whole, then check and emit a program using
  // the everyday library types, so the compiler's own code is compiled by V8 before the first agent.
  checkDeclarations();
  checker.check(WARM_UP);
  checker.transpile(WARM_UP);
  return checker;
}

/** The start-up snapshot's registry, whose library files are parsed and bound already, when the checker started from one. */
function documentRegistry(): ts.DocumentRegistry {
  const fromSnapshot = (globalThis as Record<string, unknown>)[SNAPSHOT_REGISTRY_KEY] as ts.DocumentRegistry | undefined;
  return fromSnapshot ?? ts.createDocumentRegistry();
}

const WARM_UP = `const values = await Promise.all([1, 2].map(async (n) => ({ n, text: String(n) })));
const total = values.reduce((sum, value) => sum + value.n, 0);
console.log(JSON.stringify({ total, keys: Object.keys(values[0] ?? {}) }));
try {
  throw new Error("warm-up");
} catch (e) {
  const error = e as rt.CallError;
  console.warn(error.code, error.message);
}
return values.filter((value) => value.n > 1).map((value) => value.text);`;

function wrap(code: string): string {
  return `${PREFIX}${code}${SUFFIX}`;
}

/** What is refused before the compiler reads a character. */
function refuseUnread(code: string): ProgramDiagnostic | undefined {
  const bytes = Buffer.byteLength(code, "utf8");
  if (bytes <= MAX_PROGRAM_BYTES) return undefined;
  return {
    line: 1,
    column: 1,
    code: PROGRAM_DIAGNOSTIC.TOO_LARGE,
    message: `The program is ${bytes} bytes; at most ${MAX_PROGRAM_BYTES} are accepted.`,
  };
}

interface Located {
  start: number;
  end: number;
  code: number;
  message: string;
}

/** A diagnostic before it is listed: its message is made only if it is. */
interface Found {
  start: number;
  code: number;
  message(): string;
}

/** The first diagnostics, by position, within MAX_DIAGNOSTICS and MAX_DIAGNOSTIC_BYTES; a first message alone past the bytes is cut. */
function bounded(found: readonly Found[], source: ts.SourceFile): CheckedProgram {
  const diagnostics: ProgramDiagnostic[] = [];
  let bytes = 0;
  for (const { start, code, message: make } of found) {
    if (diagnostics.length === MAX_DIAGNOSTICS) break;
    let message = make();
    if (bytes + Buffer.byteLength(message, "utf8") > MAX_DIAGNOSTIC_BYTES) {
      if (diagnostics.length > 0) break;
      message = clipped(message, MAX_DIAGNOSTIC_BYTES);
    }
    bytes += Buffer.byteLength(message, "utf8");
    diagnostics.push({ ...position(source, start), code, message });
  }
  return { diagnostics, omitted: found.length - diagnostics.length };
}

const CLIPPED = "…";

/** `text` cut to at most `bytes` UTF-8 bytes, the marker included, between characters. */
function clipped(text: string, bytes: number): string {
  let used = Buffer.byteLength(CLIPPED, "utf8");
  let end = 0;
  for (const character of text) {
    used += Buffer.byteLength(character, "utf8");
    if (used > bytes) break;
    end += character.length;
  }
  return `${text.slice(0, end)}${CLIPPED}`;
}

/**
 * Module syntax (a program loads nothing: its servers are globals) and a body that escapes
 * the wrapper function, found in the parsed program.
 */
function forbidden(source: ts.SourceFile): Located[] {
  const found: Located[] = [];
  const statements = source.statements;
  const wrapper = statements[0];
  if (statements.length !== 1 || wrapper === undefined || !ts.isFunctionDeclaration(wrapper) || wrapper.name?.text !== WRAPPER_NAME) {
    // Point at the brace that closed the wrapper, else at the first statement outside it.
    const start = ts.isFunctionDeclaration(wrapper ?? source)
      ? wrapper!.getEnd() - 1
      : Math.max((statements.find((statement) => !ts.isFunctionDeclaration(statement)) ?? source).getStart(source), PREFIX.length);
    found.push({
      start,
      end: start + 1,
      code: PROGRAM_DIAGNOSTIC.OUTSIDE_BODY,
      message: "Unbalanced '}': the program is the body of a function and must not close it.",
    });
  }
  const moduleSyntax = (node: ts.Node, what: string) =>
    found.push({
      start: node.getStart(source),
      end: node.getEnd(),
      code: PROGRAM_DIAGNOSTIC.MODULE_SYNTAX,
      message: `${what} is not available: a program loads no modules; call the servers through their globals (e.g. \`server.tool(args)\`).`,
    });
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isImportEqualsDeclaration(node)) moduleSyntax(node, "'import'");
    else if (ts.isExportDeclaration(node) || ts.isExportAssignment(node)) moduleSyntax(node, "'export'");
    else if (ts.canHaveModifiers(node) && ts.getModifiers(node)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword))
      moduleSyntax(node, "'export'");
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) moduleSyntax(node, "'import()'");
    else if (ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword)
      moduleSyntax(ts.isPropertyAccessExpression(node.parent) ? node.parent : node, "'import.meta'");
    else if (ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === "require")
      moduleSyntax(node, "'require'");
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The whole message chain (where "Did you mean" often sits), without advice to install Node's
 * types, and with a suggestion the compiler's spelling check misses: `revenue` for `totalRevenue`.
 * An unknown name with no suggestion gains the list of the globals: a program names a server by
 * its generated namespace (`memoryServer`), which an agent without inspect_tool guesses.
 */
function messageOf(diagnostic: ts.Diagnostic, source: ts.SourceFile, checker: ts.TypeChecker, program: ts.Program): string {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
  if (INSTALL_TYPES_HINTS.has(diagnostic.code)) {
    const first = message.indexOf(".");
    return `${first === -1 ? message : message.slice(0, first + 1)} Programs run without Node.js or browser APIs.`;
  }
  if (diagnostic.code === CANNOT_FIND_NAME) return `${message} The globals are ${declaredGlobals(program).join(", ")}.`;
  if (diagnostic.code !== PROPERTY_DOES_NOT_EXIST || diagnostic.start === undefined) return message;
  const access = nodeAt(source, diagnostic.start)?.parent;
  if (access === undefined || !ts.isPropertyAccessExpression(access)) return message;
  const suggestion = similarProperty(access.name.text, checker.getTypeAtLocation(access.expression), checker);
  return suggestion === undefined ? message : `${message} Did you mean '${suggestion}'?`;
}

/** "Cannot find name" with no "Did you mean" of its own. */
const CANNOT_FIND_NAME = 2304;
const PROPERTY_DOES_NOT_EXIST = 2339;

/** The constants the declarations declare (`console`, one client per server), in alphabetical order. */
function declaredGlobals(program: ts.Program): string[] {
  const statements = program.getSourceFile(DECLARATIONS_FILE)?.statements ?? [];
  return statements
    .flatMap((statement) => (ts.isVariableStatement(statement) ? statement.declarationList.declarations : []))
    .flatMap((declaration) => (ts.isIdentifier(declaration.name) ? [declaration.name.text] : []))
    .sort();
}

/** A property whose name contains the missing one or is contained in it, ignoring case; the closest in length. */
function similarProperty(missing: string, type: ts.Type, checker: ts.TypeChecker): string | undefined {
  const wanted = missing.toLowerCase();
  const names = checker
    .getPropertiesOfType(checker.getApparentType(type))
    .map((property) => property.getName())
    .filter((name) => {
      const candidate = name.toLowerCase();
      return candidate !== wanted && (candidate.includes(wanted) || wanted.includes(candidate));
    });
  return names.sort((a, b) => Math.abs(a.length - missing.length) - Math.abs(b.length - missing.length))[0];
}

/** The innermost node starting at `position`. */
function nodeAt(source: ts.SourceFile, position: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (position < node.getStart(source) || position >= node.getEnd()) return;
    found = node;
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  return found;
}

/** The program's statements, nested ones and arrow functions' expression bodies included, in source order. */
function statementsOf(source: ts.SourceFile): ProgramStatement[] {
  const found: ProgramStatement[] = [];
  const add = (node: ts.Node) => {
    const start = position(source, node.getStart(source));
    const end = position(source, node.getEnd());
    found.push([start.line, start.column, end.line, end.column]);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStatement(node)) add(node);
    else if (ts.isArrowFunction(node) && !ts.isBlock(node.body)) add(node.body);
    ts.forEachChild(node, visit);
  };
  // Not the wrapper nor its body: a position in none of the program's own statements stays as it is.
  const [wrapper] = source.statements;
  if (wrapper !== undefined && ts.isFunctionDeclaration(wrapper)) wrapper.body?.statements.forEach(visit);
  return found;
}

/** 1-based line and column in the program's own text; a position in the wrapper is moved onto the program's edge. */
function position(source: ts.SourceFile, start: number): { line: number; column: number } {
  const clamped = Math.min(Math.max(start, PREFIX.length), source.text.length - SUFFIX.length);
  const { line, character } = source.getLineAndCharacterOfPosition(clamped);
  return { line: line - PREFIX_LINES + 1, column: character + 1 };
}
