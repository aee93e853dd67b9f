import type { JsonValue } from "@pmcp-codegen/runtime/internal/json";
import type { Limits } from "./limits.js";

/** How a program calls one tool: the upstream server and tool, and the shape its result takes inside. */
export interface ToolBinding {
  server: string;
  tool: string;
  returns: Returns;
}

/**
 * "value": the bridge answers with the tool's parsed value, which the program gets as is.
 * "content": the bridge answers with the CallToolResult JSON, which the program gets as a
 * ToolResult-like object (`.content`, `.text`, `.json()`, ...), as from a generated client.
 * "parsed": the bridge answers `{ raw, value }` (value absent when the result holds no JSON), which
 * the program gets as that object with `.value` beside (rt.ParsedResult), as for an inferred type.
 */
export type Returns = "value" | "content" | "parsed";

/** A program's JavaScript (already transpiled: the body of an async function) and its globals. */
export interface CompiledProgram {
  code: string;
  /** Global name (e.g. "inventory") → method name (e.g. "getStock") → the tool it calls. */
  globals: Record<string, Record<string, ToolBinding>>;
}

/**
 * Where a program's tool calls go, on the host side. Only data crosses: `args` is the JSON
 * the program passed, and the answer must be JSON. A thrown error reaches the program as a
 * catchable error with the error's `name`, `code`, `serverId`, `toolName` and `message`.
 */
export interface HostBridge {
  call(server: string, tool: string, args: JsonValue, signal: AbortSignal): Promise<JsonValue>;
}

/** One tool call a program made; `code` is the error's code when it failed ("ABORTED" when the program stopped first). */
export interface CallRecord {
  server: string;
  tool: string;
  durationMs: number;
  ok: boolean;
  code?: string;
}

/** 1-based line and column in the program's JavaScript as the sandbox ran it (the body of an async function). */
export interface ProgramPosition {
  line: number;
  column: number;
}

export type FailureKind = "timeout" | "memory" | "call_limit" | "output_limit" | "uncaught" | "invalid_input";

export type RunOutcome =
  | { ok: true; result: JsonValue; logs: string[]; calls: CallRecord[]; durationMs: number }
  | {
      ok: false;
      kind: FailureKind;
      message: string;
      /** With "output_limit" only: the returned value cut down to fit, with markers where parts were left out. */
      result?: JsonValue;
      /** With "uncaught", and "invalid_input" for a syntax error: where the error was raised, when it was in the program's own code. */
      at?: ProgramPosition;
      logs: string[];
      calls: CallRecord[];
      durationMs: number;
    };

/** Runs programs in a sandbox; backends (QuickJS in WASM, V8 isolates, ...) fit behind this. */
export interface ProgramExecutor {
  /**
   * Never rejects for anything the program does: every failure is a RunOutcome with its kind.
   * `arrived` (a `performance.now()`, now by default) is when the program arrived: its time limit
   * and duration count from then, so what it went through before (its type-check) counts too.
   */
  run(program: CompiledProgram, host: HostBridge, limits?: Partial<Limits>, arrived?: number): Promise<RunOutcome>;
  /** Stops every program still running (each ends as a failure) and frees the workers. */
  close(): Promise<void>;
}
