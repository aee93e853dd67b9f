import { SourceMap, type SourceMapPayload, type SourceMapping } from "node:module";
import { type Context, context, type Span, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import type { CompositionClient, JsonValue } from "@pmcp-codegen/runtime";
import { errorMessage, INSTRUMENTATION } from "@pmcp-codegen/runtime/internal";
import { wholeNumberProblem } from "@pmcp-codegen/runtime/internal/numbers";
import type { z } from "zod";
import type { Quality } from "../bundle/quality.js";
import type { Bundle } from "../bundle/types.js";
import { count } from "../count.js";
import { PmcpError } from "../errors.js";
import {
  MAX_DIAGNOSTIC_BYTES,
  MAX_DIAGNOSTICS,
  PROGRAM_DIAGNOSTIC,
  type ProgramDiagnostic,
  type TranspiledProgram,
} from "./check-protocol.js";
import type { CheckerHost, CheckerHostOptions } from "./checker-host.js";
import { buildDeclarations, type ClientDeclarations, type ToolDeclaration } from "./declarations.js";
import type { CallRecord, CompiledProgram, FailureKind, HostBridge, ProgramExecutor, ProgramPosition, RunOutcome } from "./executor.js";
import type { Limits } from "./limits.js";
import { LiveParsers } from "./live-parser.js";

/**
 * What a program run ends as: the sandbox's outcome, or refused by the type-check before anything
 * ran. A failure's `at` is in the agent's own text: the start of the statement that failed.
 */
export type ExecOutcome =
  | RunOutcome
  /** The session could not start (a server that failed to list, types that do not compile): nothing ran. */
  | (Omit<Extract<RunOutcome, { ok: false }>, "kind"> & { kind: "startup" })
  | {
      ok: false;
      kind: "type_error";
      message: string;
      /** The first diagnostics, within the checker's bounds; `omitted` more were found. */
      diagnostics: ProgramDiagnostic[];
      omitted: number;
      logs: string[];
      calls: CallRecord[];
      durationMs: number;
    };

export type ExecFailureKind = FailureKind | "type_error" | "startup";

/** The first word of every failure's text, one per kind, so an agent can tell them apart without parsing. */
export const FAILURE_TAGS: Record<ExecFailureKind, string> = {
  startup: "[Start-up failed]",
  type_error: "[Type error]",
  timeout: "[Timeout]",
  memory: "[Memory limit]",
  call_limit: "[Call limit]",
  output_limit: "[Output limit]",
  uncaught: "[Uncaught error]",
  invalid_input: "[Invalid input]",
};

export const SUCCESS_TAG = "[Script executed successfully]";

/** What a session runs programs against once its servers are up. */
export interface SessionServers {
  /** The servers' listing; its `inferred` blocks type the tools that declare no output schema. */
  bundle: Bundle;
  /** Connected to the same servers, under the bundle's server ids. */
  client: CompositionClient;
  /** The bundle file each learning round's blocks are written into, merged with what it holds at the time. */
  learnInto?: string | undefined;
}

/** How a session runs programs, known before its servers are. */
export interface SessionSettings {
  executor: ProgramExecutor;
  limits: Limits;
  minQuality: Quality;
  /** Results are parsed as `pmcp generate --strict-objects` clients parse them: keys `additionalProperties: false` forbids are rejected. */
  strictObjects?: boolean;
  /** Folder of the client's observation logs: after each program, newly inferred types join the declarations. */
  learnFrom?: string;
  /** The type-checker's processes and their limits (heap, longest check). */
  checker?: CheckerHostOptions;
}

export type ExecSessionOptions = SessionSettings & SessionServers;

/** What changes together when a type is learned. */
interface SessionState {
  bundle: Bundle;
  declarations: ClientDeclarations;
  program: Omit<CompiledProgram, "code">;
  tools: Map<string, HostTool>;
}

/** How the sandbox and the host see one tool: its binding plus the parser of its result, the generated client's own. */
interface HostTool {
  declaration: ToolDeclaration;
  serverId: string;
  parse: z.ZodType<unknown> | undefined;
  /** The protocol version the server spoke when listed: calls start in that era. */
  protocol?: string;
}

/**
 * Code mode over live servers: type-checks a program against the clients' declarations, then
 * runs it in the sandbox with every tool call going through the real CompositionClient. The
 * declarations, bindings and bundle are replaced together when learning changes a type, and a
 * program keeps the set it started with. The servers and the type-checker start in the
 * background: a program that comes first waits for them within its own time.
 */
export class ExecSession {
  readonly #options: SessionSettings;
  #servers: SessionServers | undefined;
  #state: SessionState | undefined;
  #checker: CheckerHost | undefined;
  /** Settles once the servers are listed and their declarations built: the failure's message, if any. */
  readonly #listed: Promise<string | undefined>;
  /** Settles once the type-checker is up too (or the start failed): the failure's message, if any. */
  readonly #started: Promise<string | undefined>;
  /** What the start failed with, as thrown. */
  #failure: unknown;
  /** Aborted by close: a checker still starting is ended rather than waited for. */
  readonly #closing = new AbortController();
  #learning: Promise<void> = Promise.resolve();
  readonly #warned = new Set<string>();

  private constructor(options: SessionSettings, servers: Promise<SessionServers>) {
    this.#options = options;
    const listing = servers.then((started) => {
      this.#servers = started;
      this.#state = stateOf(started.bundle, options);
      return this.#state;
    });
    const checking = listing.then(async (state) => {
      if (this.#closing.signal.aborted) throw new PmcpError("SERVER_FAILED", "the session was closed while it started");
      // TypeScript takes most of a second to load in each thread, more on a busy machine.
      const { CheckerHost } = await import("./checker-host.js");
      this.#checker = await CheckerHost.create(state.declarations.text, options.checker, this.#closing.signal);
    });
    const failed = (error: unknown) => {
      this.#failure ??= error;
      return errorMessage(error);
    };
    this.#listed = listing.then(() => undefined, failed);
    this.#started = checking.then(() => undefined, failed);
  }

  /**
   * A session whose servers are still starting: `servers` settles with them (or rejects with why
   * they cannot start). Programs and listings wait for it; it answers at once all the same.
   */
  static start(options: SessionSettings, servers: Promise<SessionServers>): ExecSession {
    return new ExecSession(options, servers);
  }

  /** A session over servers already listed, once its type-checker's processes are warm; rejects when the declarations do not compile. */
  static async create(options: ExecSessionOptions): Promise<ExecSession> {
    const session = new ExecSession(options, Promise.resolve(options));
    await session.ready();
    return session;
  }

  /** Resolves once the servers are listed and the type-checker is up; rejects with what the start failed with. */
  async ready(): Promise<void> {
    if ((await this.#started) !== undefined) throw this.#failure;
  }

  /**
   * Ends a start still under way (a checker warming up is ended, not waited for), waits for the
   * learning round under way (its write included), then ends the checker's processes; the executor
   * and the client belong to the caller.
   */
  async close(): Promise<void> {
    this.#closing.abort();
    await this.#started;
    await this.#learning;
    await this.#checker?.close();
  }

  /** The servers' listing, once they are listed; rejects with why they could not be. */
  async bundle(): Promise<Bundle> {
    const failure = await this.#listed;
    if (failure !== undefined) throw new PmcpError("SERVER_FAILED", `the servers could not start: ${failure}`);
    return (this.#state as SessionState).bundle;
  }

  get limits(): Limits {
    return this.#options.limits;
  }

  /** How a program calls `server/tool`, or undefined when there is no such tool. */
  declarationOf(name: string): ToolDeclaration | undefined {
    const slash = name.indexOf("/");
    if (slash < 0 || this.#state === undefined) return undefined;
    const server = this.#state.declarations.servers.find((entry) => entry.serverId === name.slice(0, slash));
    return server?.tools.find((tool) => tool.toolName === name.slice(slash + 1));
  }

  /**
   * Type-checks and runs one program; `timeoutMs` is capped by the session's limit. One span
   * covers it, with the limits and the outcome; its tool calls are the span's children. Both
   * arguments come from an agent as they are: anything else than a string and a whole number
   * is an `invalid_input` outcome. `caller` names who sent it (an authenticated client), for
   * the type-checkers' fair shares.
   */
  execute(code: unknown, timeoutMs?: unknown, caller?: string): Promise<ExecOutcome> {
    return trace
      .getTracer(INSTRUMENTATION.name, INSTRUMENTATION.version)
      .startActiveSpan("execute_program", { kind: SpanKind.INTERNAL }, async (span) => {
        // Ended also when the run throws (a sandbox that cannot start), or the trace would keep it open.
        try {
          const outcome = await this.#execute(code, timeoutMs, span, caller);
          if (span.isRecording()) {
            span.setAttributes({ "pmcp.program.outcome": outcome.ok ? "ok" : outcome.kind, "pmcp.program.calls": outcome.calls.length });
            if (!outcome.ok)
              span.setStatus({ code: SpanStatusCode.ERROR, message: outcome.message }).setAttribute("error.type", outcome.kind);
          }
          return outcome;
        } finally {
          span.end();
        }
      });
  }

  async #execute(code: unknown, timeoutMs: unknown, span: Span, caller: string | undefined): Promise<ExecOutcome> {
    // The time limit counts from here: waiting for a checker, the check, waiting for a sandbox and the run.
    const arrived = performance.now();
    const limits = this.#options.limits;
    if (typeof code !== "string")
      return invalidInput(`code must be the program's TypeScript as a string, got ${code === null ? "null" : typeof code}`);
    const timeoutProblem = timeoutMs === undefined ? undefined : wholeNumberProblem(timeoutMs, { unit: "milliseconds" });
    if (timeoutProblem !== undefined) return invalidInput(`timeout_ms ${timeoutProblem}`);
    const timeout = typeof timeoutMs === "number" ? Math.min(timeoutMs, limits.timeoutMs) : limits.timeoutMs;
    if (span.isRecording()) {
      span.setAttributes({
        "pmcp.program.timeout_ms": timeout,
        "pmcp.program.heap_bytes": limits.heapBytes,
        "pmcp.program.max_calls": limits.maxCalls,
        "pmcp.program.max_concurrent_calls": limits.maxConcurrentCalls,
        "pmcp.program.max_output_bytes": limits.maxOutputBytes,
      });
    }
    const unready = await this.#whenStarted(timeout, arrived);
    if (unready !== undefined) return unready;
    const state = this.#state as SessionState;
    const servers = this.#servers as SessionServers;
    const checked = await (this.#checker as CheckerHost).check(code, state.declarations.text, { limitMs: timeout, arrived }, caller);
    if (!checked.ok) {
      const durationMs = performance.now() - arrived;
      if (checked.kind !== "type_error")
        return { ok: false, kind: checked.kind, message: checked.message, logs: [], calls: [], durationMs };
      const { diagnostics, omitted } = checked;
      const [first] = diagnostics;
      // Refused unread for its size: not a type error, there is nothing to fix in it but its length.
      if (diagnostics.length === 1 && first?.code === PROGRAM_DIAGNOSTIC.TOO_LARGE) return invalidInput(first.message);
      const message = `${count(diagnostics.length + omitted, "problem")}; nothing was run`;
      return { ok: false, kind: "type_error", message, diagnostics, omitted, logs: [], calls: [], durationMs: 0 };
    }
    const program: CompiledProgram = { ...state.program, code: checked.program.code };
    const bridge = hostBridge(servers.client, state.tools, context.active());
    const ran = await this.#options.executor.run(program, bridge, { timeoutMs: timeout }, arrived);
    const outcome = ran.ok ? ran : withSourcePosition(ran, checked.program);
    // Only a successful call is observed, so only then can a type have changed.
    if (this.#options.learnFrom !== undefined && outcome.calls.some((call) => call.ok)) await this.#learn(this.#options.learnFrom);
    return outcome;
  }

  /**
   * Nothing once the session has started; else waits for the start within the program's time, and
   * says what failed, or what was still starting when the time ran out.
   */
  async #whenStarted(timeout: number, arrived: number): Promise<ExecOutcome | undefined> {
    if (this.#checker !== undefined) return undefined;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<"expired">((resolve) => {
      timer = setTimeout(() => resolve("expired"), timeout - (performance.now() - arrived));
    });
    const failure = await Promise.race([this.#started, expired]);
    clearTimeout(timer);
    if (failure === undefined) return undefined;
    const durationMs = performance.now() - arrived;
    if (failure !== "expired")
      return { ok: false, kind: "startup", message: `${failure}; nothing was run`, logs: [], calls: [], durationMs };
    const stage = this.#state === undefined ? "connecting to the servers and listing their tools" : "starting the type-checker";
    const message = `the session was still starting (${stage}) when the program's ${timeout} ms ran out; nothing was run, and a later program need not wait as long`;
    return { ok: false, kind: "timeout", message, logs: [], calls: [], durationMs };
  }

  /** A log that cannot be learned from fails every round alike: said once, not after every program. */
  #warnOnce(message: string): void {
    if (this.#warned.has(message)) return;
    this.#warned.add(message);
    process.emitWarning(message, "PmcpLearnWarning");
  }

  /**
   * One learning round at a time: concurrent programs each wait for the round that covers their
   * calls. The blocks it learned replace those in use (carryInferred's rule), then, with a bundle
   * file to keep them in, those on disk.
   */
  #learn(dir: string): Promise<void> {
    let learned: Bundle | undefined;
    const { client, learnInto: into } = this.#servers as SessionServers;
    return this.#replace(
      `learning from ${dir}`,
      async () => {
        const [{ inferBundle }, { carryInferred }] = await Promise.all([
          import("../learn/observation-logs.js"),
          import("../bundle/carry-inferred.js"),
        ]);
        await client.flushObservations();
        const state = this.#state as SessionState;
        const result = await inferBundle(state.bundle, dir);
        // One tool that cannot be learned keeps its type; the others' are learned all the same.
        for (const failure of result.failed) this.#warnOnce(`learning from ${dir}: ${failure}`);
        const fresh = new Set(result.inferred);
        learned = {
          ...result.bundle,
          servers: result.bundle.servers.map((server) => ({
            ...server,
            inferred: (server.inferred ?? []).filter((block) => fresh.has(block)),
          })),
        };
        return carryInferred(state.bundle, learned);
      },
      into === undefined ? undefined : () => this.#keep(into, learned!),
    );
  }

  /** A bundle that cannot take the blocks leaves them in memory, for this session: a warning, and the next round tries again. */
  async #keep(path: string, learned: Bundle): Promise<void> {
    try {
      const { writeInferred } = await import("../learn/write-inferred.js");
      await writeInferred(path, learned, "--schema");
    } catch (error) {
      this.#warnOnce(`learned types stay in memory: ${errorMessage(error)}`);
    }
  }

  /** The servers listed again (their listing's ttlMs ran out): their tools replace the ones in use, as learning's do. */
  replaceBundle(bundle: Bundle): Promise<void> {
    return this.#replace("listing the servers again", async () => bundle);
  }

  /**
   * Swaps the declarations, bindings and bundle for those of `next`, one swap at a time, and runs
   * `then` once the swap is made; a program keeps the set it started with. A swap that fails (an
   * unreadable log, types that do not compile) keeps the types in use, with a warning, and the next
   * one tries again.
   */
  #replace(what: string, next: () => Promise<Bundle>, then?: () => Promise<void>): Promise<void> {
    this.#learning = this.#learning
      .then(async () => {
        // Nothing to replace in a session that has not started, or never will.
        if ((await this.#started) !== undefined) return;
        const checker = this.#checker as CheckerHost;
        const state = stateOf(await next(), this.#options);
        if (state.declarations.text !== (this.#state as SessionState).declarations.text)
          await checker.updateDeclarations(state.declarations.text);
        this.#state = state;
        await then?.();
      })
      .catch((error: unknown) => {
        process.emitWarning(`${what} failed: ${errorMessage(error)}`, "PmcpLearnWarning");
      });
    return this.#learning;
  }
}

function stateOf(bundle: Bundle, options: Pick<ExecSessionOptions, "minQuality" | "strictObjects">): SessionState {
  const declarations = buildDeclarations(bundle, { minQuality: options.minQuality, strictObjects: options.strictObjects ?? false });
  const tools = new Map<string, HostTool>();
  const globals: CompiledProgram["globals"] = {};
  for (const server of declarations.servers) {
    const entry = bundle.servers.find((candidate) => candidate.id === server.serverId);
    const parsers = new LiveParsers(server.parsers);
    const methods: CompiledProgram["globals"][string] = {};
    for (const declaration of server.tools) {
      methods[declaration.method] = { server: server.serverId, tool: declaration.toolName, returns: declaration.returns };
      tools.set(toolKey(server.serverId, declaration.toolName), {
        declaration,
        serverId: server.serverId,
        parse: declaration.parser === undefined ? undefined : parsers.build(declaration.parser),
        ...(entry?.protocolVersion === undefined ? {} : { protocol: entry.protocolVersion }),
      });
    }
    globals[server.global] = methods;
  }
  return { bundle, declarations, program: { globals }, tools };
}

function toolKey(server: string, tool: string): string {
  return JSON.stringify([server, tool]);
}

/**
 * Tool calls of one program, through the client: the parsed value, the whole result for
 * `rt.ToolResult` tools, or both for tools typed by inference (`rt.ParsedResult`). They arrive as the sandbox's messages, outside the program's context,
 * so each runs in `program` (the context of the program's span) to be the span's child.
 */
function hostBridge(client: CompositionClient, tools: ReadonlyMap<string, HostTool>, program: Context): HostBridge {
  return {
    call: (server, tool, args, signal) => context.with(program, () => callTool(client, tools, server, tool, args, signal)),
  };
}

async function callTool(
  client: CompositionClient,
  tools: ReadonlyMap<string, HostTool>,
  server: string,
  tool: string,
  args: JsonValue,
  signal: AbortSignal,
): Promise<JsonValue> {
  const entry = tools.get(toolKey(server, tool));
  if (entry === undefined) throw new Error(`${server}/${tool}: no such tool`);
  const call = {
    server,
    tool,
    args: args as object,
    retryable: entry.declaration.retryable,
    task: entry.declaration.task,
    ...(entry.protocol === undefined ? {} : { protocol: entry.protocol }),
  };
  if (entry.parse !== undefined && entry.declaration.returns === "parsed") {
    const result = await client.callTool({ ...call, parse: entry.parse, lenient: true }, { signal, withResult: true });
    // No value when the result holds no JSON: `value` is then left out, and the program reads it as undefined.
    return { raw: result.raw as unknown as JsonValue, ...(result.value === undefined ? {} : { value: result.value as JsonValue }) };
  }
  if (entry.parse !== undefined) {
    const parsed = { ...call, parse: entry.parse, nonObject: entry.declaration.nonObject };
    return (await client.callTool(parsed, { signal })) as JsonValue;
  }
  return (await client.callToolForResult(call, { signal })).raw as unknown as JsonValue;
}

/** The text an agent reads first: the tag, then the structured fields as JSON. */
export function outcomeText(outcome: ExecOutcome): string {
  const fields = structuredOf(outcome);
  if (outcome.ok) return `${SUCCESS_TAG}\n${JSON.stringify(fields)}`;
  const diagnostics = outcome.kind === "type_error" ? diagnosticLines(outcome, "").map((line) => `${line}\n`) : [];
  const at = "at" in outcome && outcome.at !== undefined ? ` (line ${outcome.at.line}, column ${outcome.at.column})` : "";
  return `${FAILURE_TAGS[outcome.kind]} ${outcome.message}${at}\n${diagnostics.join("")}${JSON.stringify(fields)}`;
}

/** One `<where>line:col message` line per listed diagnostic, then one saying how many were left out, if any. */
export function diagnosticLines(outcome: Extract<ExecOutcome, { kind: "type_error" }>, where: string): string[] {
  const lines = outcome.diagnostics.map((diagnostic) => `${where}${diagnostic.line}:${diagnostic.column} ${diagnostic.message}`);
  if (outcome.omitted > 0)
    lines.push(
      `… ${count(outcome.omitted, "more problem")} not listed (at most ${MAX_DIAGNOSTICS} are, with ${MAX_DIAGNOSTIC_BYTES} bytes of messages)`,
    );
  return lines;
}

/** `{ result, logs, calls, durationMs }`; a failed program's result is null unless the output limit cut it down. */
export function structuredOf(outcome: ExecOutcome): { result: JsonValue; logs: string[]; calls: CallRecord[]; durationMs: number } {
  const result = outcome.ok ? outcome.result : outcome.kind === "type_error" ? null : (outcome.result ?? null);
  return {
    result,
    logs: outcome.logs,
    calls: outcome.calls.map((call) => ({ ...call, durationMs: tenths(call.durationMs) })),
    durationMs: tenths(outcome.durationMs),
  };
}

function invalidInput(message: string): ExecOutcome {
  return { ok: false, kind: "invalid_input", message, logs: [], calls: [], durationMs: 0 };
}

/**
 * The failure with its position in the agent's own text, found by the emit's source map, at the
 * start of the innermost statement holding it: QuickJS locates an error at the last operand it
 * evaluated, which may sit in a call's arguments or a template string (`new Error(\`${n}\`)`),
 * while the statement is where the agent looks. No position when the sandbox's is not the program's.
 */
function withSourcePosition(failed: Extract<RunOutcome, { ok: false }>, program: TranspiledProgram): ExecOutcome {
  const { at, ...rest } = failed;
  if (at === undefined) return rest;
  const map = new SourceMap(JSON.parse(program.sourceMap) as SourceMapPayload);
  const entry = map.findEntry(at.line - 1, at.column - 1) as Partial<SourceMapping>;
  if (entry.originalLine === undefined || entry.originalColumn === undefined) return rest;
  // The type-checked text has the wrapper's line first: its 0-based line n is the program's line n.
  const point = { line: entry.originalLine, column: entry.originalColumn + 1 };
  const statement = program.statements.findLast(
    ([line, column, endLine, endColumn]) => !before(point, { line, column }) && before(point, { line: endLine, column: endColumn }),
  );
  return { ...rest, at: statement === undefined ? point : { line: statement[0], column: statement[1] } };
}

function before(a: ProgramPosition, b: ProgramPosition): boolean {
  return a.line < b.line || (a.line === b.line && a.column < b.column);
}

/** The whole outcome as one JSON value, for `pmcp exec --json`. */
export function outcomeJson(outcome: ExecOutcome): object {
  const fields = structuredOf(outcome);
  if (outcome.ok) return { ok: true, ...fields };
  const details =
    outcome.kind === "type_error"
      ? { diagnostics: outcome.diagnostics, omitted: outcome.omitted }
      : outcome.at === undefined
        ? {}
        : { at: outcome.at };
  return { ok: false, tag: FAILURE_TAGS[outcome.kind], message: outcome.message, ...details, ...fields };
}

/** Durations to a tenth of a millisecond: the agent reads every digit, and the clock is not finer than that anyway. */
function tenths(ms: number): number {
  return Math.round(ms * 10) / 10;
}
