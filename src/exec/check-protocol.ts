/** The checker's protocol: what it reports, and the messages between its host and its processes. */

/** One problem in a program, at 1-based line and column of the program's own text. */
export interface ProgramDiagnostic {
  line: number;
  column: number;
  /** TypeScript's error code, or one of PROGRAM_DIAGNOSTIC's for what programs may not do. */
  code: number;
  message: string;
}

/** A program with its types erased, as the sandbox runs it, and the source map back to the program's text. */
export interface TranspiledProgram {
  code: string;
  /** Maps the code's own lines and columns: the code is the whole emitted file, from its first line. */
  sourceMap: string;
  /** Every statement of the program, nested ones included, in source order: where a run-time error is reported. */
  statements: ProgramStatement[];
}

/** A statement's first position and the position just past it: [line, column, endLine, endColumn], 1-based, in the program's own text. */
export type ProgramStatement = [number, number, number, number];

/**
 * At most this many diagnostics are listed, and at most this many UTF-8 bytes of their messages
 * together: a program can make tens of thousands, megabytes of text no agent reads.
 */
export const MAX_DIAGNOSTICS = 50;
export const MAX_DIAGNOSTIC_BYTES = 16_384;

/** Codes of the diagnostics this checker adds to TypeScript's own (outside TypeScript's range). */
export const PROGRAM_DIAGNOSTIC = {
  /** `import`, `export`, `require(…)`, `import.meta`: a program loads nothing. */
  MODULE_SYNTAX: 90001,
  /** The program is larger than MAX_PROGRAM_BYTES. */
  TOO_LARGE: 90002,
  /** The program closes the function it is the body of (`}` too many). */
  OUTSIDE_BODY: 90003,
} as const;

/** The first message a CheckerHost sends a checker process: what it starts with. */
export interface CheckerStart {
  declarations: string;
}

/** The messages between a CheckerHost and its checker processes, after the start. */
export type CheckRequest =
  /** `declarations` when the process must check against other declarations than it holds. */
  { type: "check"; id: number; code: string; declarations?: string } | { type: "update"; id: number; declarations: string };

export type CheckReply =
  | { type: "ready" }
  /**
   * `program` (its types erased, with the source map back) only when there are no diagnostics;
   * `omitted`: the diagnostics found past the list's bounds.
   */
  | { type: "checked"; id: number; diagnostics: ProgramDiagnostic[]; omitted: number; program?: TranspiledProgram }
  | { type: "updated"; id: number }
  /** id -1: the checker could not be created (the declarations do not compile). */
  | { type: "failed"; id: number; message: string };
