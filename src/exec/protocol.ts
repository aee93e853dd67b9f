import type { FailureKind, ProgramPosition, Returns } from "./executor.js";
import type { Limits } from "./limits.js";

/** The messages between the executor and its sandbox workers; only strings and numbers cross. */

/** One method of one global, as the guest prelude reads it; `index` is what a call names. */
export interface MethodSpec {
  method: string;
  server: string;
  tool: string;
  returns: Returns;
  index: number;
}

export type ToWorker =
  /** `deadline` is in `Date.now()` time, which both threads share. */
  | { type: "run"; runId: number; code: string; bindings: string; limits: Limits; deadline: number }
  | { type: "answer"; runId: number; callId: number; answer: string }
  /** The reason is in the shared stop flag; this only wakes a worker whose program waits for calls. */
  | { type: "stop"; runId: number };

export type WorkerDone =
  | { ok: true; result: string; logs: string[] }
  | { ok: false; kind: FailureKind; message: string; result?: string; at?: ProgramPosition; logs: string[] };

export type FromWorker =
  | { type: "call"; runId: number; callId: number; index: number; args: string }
  | { type: "done"; runId: number; outcome: WorkerDone };

/** Values of the shared stop flag (an Int32Array of one element), set by the executor only. */
export const STOP_REASONS = ["timeout", "call_limit"] as const satisfies readonly FailureKind[];

export function stopCode(kind: (typeof STOP_REASONS)[number]): number {
  return STOP_REASONS.indexOf(kind) + 1;
}

export function stopKind(code: number): FailureKind | undefined {
  return STOP_REASONS[code - 1];
}

/**
 * The delay until a run's `deadline` (a `Date.now()` time), for a timer: never negative, since a program
 * may reach its timer past its deadline (it waited for a worker on a loaded machine), and Node 23 and
 * later print a TimeoutNegativeWarning for a negative delay.
 */
export function msUntil(deadline: number): number {
  return Math.max(0, deadline - Date.now());
}
