import type { ProgramDiagnostic } from "./type-check.js";

/** The messages between a ProgramCheckWorker and its thread. */
export type CheckRequest = { type: "check"; id: number; code: string } | { type: "update"; id: number; declarations: string };

export type CheckReply =
  | { type: "ready" }
  /** `code` (the program with its types erased) only when there are no diagnostics. */
  | { type: "checked"; id: number; diagnostics: ProgramDiagnostic[]; code?: string }
  | { type: "updated"; id: number }
  /** id -1: the checker could not be created (the declarations do not compile). */
  | { type: "failed"; id: number; message: string };
