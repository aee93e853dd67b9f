import { relative, resolve, sep } from "node:path";
import ts from "./typescript.cjs";

/** A construct that cannot become part of a tool definition, located at its declaration. */
export interface SourceProblem {
  /** Relative to the current directory, with `/` separators. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  message: string;
}

/** A problem located at `node`'s first token. */
export function problemAt(node: ts.Node, message: string): SourceProblem {
  const source = node.getSourceFile();
  const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
  return { file: displayPath(source.fileName), line: line + 1, column: character + 1, message };
}

/** `fallback` is the file to name when the compiler gives none (the config file, the module). */
export function diagnosticProblem(diagnostic: ts.Diagnostic, fallback: string): SourceProblem {
  const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, " ");
  if (diagnostic.file === undefined || diagnostic.start === undefined) return { file: displayPath(fallback), line: 1, column: 1, message };
  const { line, character } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
  return { file: displayPath(diagnostic.file.fileName), line: line + 1, column: character + 1, message };
}

/** `path` relative to the current directory, with `/` separators. */
export function displayPath(path: string): string {
  return relative(process.cwd(), resolve(path)).split(sep).join("/");
}
