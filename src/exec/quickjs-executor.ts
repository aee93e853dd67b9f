import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type { JsonValue } from "@pmcp-codegen/runtime/internal/json";
import { MAX_TIMEOUT_MS, wholeNumberProblem } from "@pmcp-codegen/runtime/internal/numbers";
import type { QuickJSOptions } from "quickjs-wasi";
import type { CallRecord, CompiledProgram, HostBridge, ProgramExecutor, RunOutcome } from "./executor.js";
import { DEFAULT_LIMITS, DEFAULT_MAX_PROGRAMS, type Limits } from "./limits.js";
import { type FromWorker, type MethodSpec, msUntil, type STOP_REASONS, stopCode, type ToWorker, type WorkerDone } from "./protocol.js";

export interface QuickJsExecutorOptions {
  /** Programs that run at once, each in its own worker thread (default DEFAULT_MAX_PROGRAMS); more wait their turn. */
  workers?: number;
  /** Limits for every run, each overridable per run. */
  limits?: Partial<Limits>;
}

type WasmModule = QuickJSOptions["wasm"];
/** Node has WebAssembly; the Node 20 type definitions do not declare it. */
declare const WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> };

/** How long past its deadline a worker may take to report a stopped program before it is ended. */
const KILL_GRACE_MS = 5_000;
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

interface Slot {
  worker: Worker;
  stop: Int32Array;
  run: HostRun | undefined;
}

/**
 * Runs programs in QuickJS (QuickJS-NG compiled to WASM, via quickjs-wasi) inside worker
 * threads: a fresh VM per program, a pool of workers that each run one program at a time.
 * The WASM module is compiled once and shared with every worker.
 */
export class QuickJsExecutor implements ProgramExecutor {
  readonly #size: number;
  readonly #limits: Limits;
  #module: Promise<WasmModule> | undefined;
  readonly #slots = new Set<Slot>();
  readonly #idle: Slot[] = [];
  readonly #waiting: ((slot: Slot | undefined) => void)[] = [];
  #spawning = 0;
  #nextRunId = 0;
  #closed = false;

  constructor(options: QuickJsExecutorOptions = {}) {
    this.#size = options.workers ?? DEFAULT_MAX_PROGRAMS;
    this.#limits = { ...DEFAULT_LIMITS, ...options.limits };
  }

  async run(program: CompiledProgram, host: HostBridge, limits: Partial<Limits> = {}, arrived = performance.now()): Promise<RunOutcome> {
    const resolved: Limits = { ...this.#limits, ...limits };
    const problem = limitsProblem(resolved) ?? globalsProblem(program);
    if (problem !== undefined) return { ok: false, kind: "invalid_input", message: problem, logs: [], calls: [], durationMs: 0 };
    // The wall-time limit counts from the arrival: time spent waiting for a free worker is the program's time too.
    const deadline = Date.now() + resolved.timeoutMs - (performance.now() - arrived);
    const slot = await this.#acquire(deadline);
    if (slot === "closed") return closedOutcome();
    if (slot === "timeout") return queuedTooLong(resolved, performance.now() - arrived);
    const run = new HostRun(slot, this.#nextRunId++, program, host, resolved, deadline, arrived, (dead) => this.#release(slot, dead));
    return run.outcome;
  }

  async close(): Promise<void> {
    this.#closed = true;
    for (const resolve of this.#waiting.splice(0)) resolve(undefined);
    await Promise.all([...this.#slots].map((slot) => this.#end(slot)));
  }

  async #acquire(deadline: number): Promise<Slot | "closed" | "timeout"> {
    if (this.#closed) return "closed";
    const idle = this.#idle.pop();
    if (idle !== undefined) return idle;
    if (this.#slots.size + this.#spawning < this.#size) return this.#spawn();
    return new Promise((resolve) => {
      const waiter = (slot: Slot | undefined) => {
        clearTimeout(timer);
        resolve(slot ?? "closed");
      };
      const timer = setTimeout(() => {
        const index = this.#waiting.indexOf(waiter);
        if (index >= 0) this.#waiting.splice(index, 1);
        resolve("timeout");
      }, msUntil(deadline));
      this.#waiting.push(waiter);
    });
  }

  async #spawn(): Promise<Slot> {
    this.#module ??= loadModule();
    // Counted before the wait for the module, so that runs arriving together start no more workers than the pool's size.
    this.#spawning++;
    let module: WasmModule;
    try {
      module = await this.#module;
    } finally {
      // In the same turn as the slot's adding below: the count never drops before the slot is in.
      this.#spawning--;
    }
    const stop = new Int32Array(new SharedArrayBuffer(4));
    const worker = new Worker(new URL("./quickjs-worker.js", import.meta.url), {
      workerData: { module, stop, heapBytes: this.#limits.heapBytes },
      // The host's flags (a loader, --input-type) are not the sandbox's business.
      execArgv: [],
    });
    const slot: Slot = { worker, stop, run: undefined };
    worker.on("message", (message: FromWorker) => slot.run?.onMessage(message));
    worker.on("error", (error) => slot.run?.onWorkerFailed(error));
    worker.on("exit", () => {
      slot.run?.onWorkerFailed(new Error("the sandbox worker exited"));
      this.#forget(slot);
    });
    this.#slots.add(slot);
    return slot;
  }

  #release(slot: Slot, dead: boolean): void {
    slot.run = undefined;
    if (dead || this.#closed) {
      void this.#end(slot);
      if (this.#waiting.length > 0 && !this.#closed) void this.#spawn().then((fresh) => this.#handOver(fresh));
      return;
    }
    this.#handOver(slot);
  }

  #handOver(slot: Slot): void {
    const next = this.#waiting.shift();
    if (next !== undefined) next(slot);
    else {
      slot.worker.unref();
      this.#idle.push(slot);
    }
  }

  #forget(slot: Slot): void {
    this.#slots.delete(slot);
    const index = this.#idle.indexOf(slot);
    if (index >= 0) this.#idle.splice(index, 1);
  }

  async #end(slot: Slot): Promise<void> {
    this.#forget(slot);
    slot.run?.onWorkerFailed(new Error("the executor was closed"));
    await slot.worker.terminate();
  }
}

async function loadModule(): Promise<WasmModule> {
  const path = createRequire(import.meta.url).resolve("quickjs-wasi/quickjs.wasm");
  return WebAssembly.compile(await readFile(path));
}

function limitsProblem(limits: Limits): string | undefined {
  for (const [name, value] of Object.entries(limits)) {
    const problem = wholeNumberProblem(value);
    if (problem !== undefined) return `the limit ${name} ${problem}`;
  }
  return undefined;
}

function globalsProblem(program: CompiledProgram): string | undefined {
  if (typeof program.code !== "string") return "the program's code is not a string";
  for (const name of Object.keys(program.globals)) {
    if (!IDENTIFIER.test(name)) return `the global name ${JSON.stringify(name)} is not an identifier`;
  }
  return undefined;
}

function queuedTooLong(limits: Limits, durationMs: number): RunOutcome {
  // It never ran: saying it "ran longer than" its limit would send the agent looking for a slow loop.
  const message = `the program's time limit of ${limits.timeoutMs} ms ran out while it waited for a free sandbox; it never ran`;
  return { ok: false, kind: "timeout", message, logs: [], calls: [], durationMs };
}

function closedOutcome(): RunOutcome {
  return { ok: false, kind: "uncaught", message: "the executor was closed before the program started", logs: [], calls: [], durationMs: 0 };
}

interface PendingCall {
  record: CallRecord;
  started: number;
  controller: AbortController;
}

/** One program on the host side: its calls (count, concurrency, records), its watchdog and its outcome. */
class HostRun {
  readonly outcome: Promise<RunOutcome>;
  readonly #slot: Slot;
  readonly #runId: number;
  readonly #host: HostBridge;
  readonly #limits: Limits;
  readonly #methods: MethodSpec[];
  readonly #started: number;
  readonly #calls: CallRecord[] = [];
  readonly #inFlight = new Map<number, PendingCall>();
  readonly #queue: Extract<FromWorker, { type: "call" }>[] = [];
  readonly #watchdog: NodeJS.Timeout;
  readonly #release: (dead: boolean) => void;
  #requested = 0;
  #resolve!: (outcome: RunOutcome) => void;
  #finished = false;

  constructor(
    slot: Slot,
    runId: number,
    program: CompiledProgram,
    host: HostBridge,
    limits: Limits,
    deadline: number,
    started: number,
    release: (dead: boolean) => void,
  ) {
    this.outcome = new Promise((resolve) => {
      this.#resolve = resolve;
    });
    this.#slot = slot;
    this.#runId = runId;
    this.#host = host;
    this.#limits = limits;
    this.#started = started;
    this.#release = release;
    this.#methods = [];
    const bindings = Object.entries(program.globals).map(([name, methods]) => ({
      name,
      methods: Object.entries(methods).map(([method, binding]) => {
        const spec: MethodSpec = {
          method,
          server: binding.server,
          tool: binding.tool,
          returns: binding.returns,
          index: this.#methods.length,
        };
        this.#methods.push(spec);
        return spec;
      }),
    }));
    slot.run = this;
    Atomics.store(slot.stop, 0, 0);
    slot.worker.ref();
    this.#post({ type: "run", runId, code: program.code, bindings: JSON.stringify(bindings), limits, deadline });
    // The worker stops its program at the deadline itself; this covers a worker that cannot. Node fires a
    // longer delay than its timers hold after 1 ms, which ended every program given the largest time limit.
    this.#watchdog = setTimeout(() => this.#kill(), Math.min(msUntil(deadline) + KILL_GRACE_MS, MAX_TIMEOUT_MS));
  }

  onMessage(message: FromWorker): void {
    if (message.runId !== this.#runId || this.#finished) return;
    if (message.type === "done") this.#finish(message.outcome, false);
    else this.#onCall(message);
  }

  onWorkerFailed(error: Error & { code?: string }): void {
    if (this.#finished) return;
    const memory = error.code === "ERR_WORKER_OUT_OF_MEMORY";
    this.#finish(
      {
        ok: false,
        kind: memory ? "memory" : "uncaught",
        message: memory ? "the sandbox ran out of memory" : `the sandbox failed: ${error.message}`,
        logs: [],
      },
      true,
    );
  }

  #post(message: ToWorker): void {
    this.#slot.worker.postMessage(message);
  }

  #onCall(message: Extract<FromWorker, { type: "call" }>): void {
    this.#requested++;
    if (this.#requested > this.#limits.maxCalls) {
      this.#stop("call_limit");
      return;
    }
    if (this.#inFlight.size >= this.#limits.maxConcurrentCalls) this.#queue.push(message);
    else this.#start(message);
  }

  #start(message: Extract<FromWorker, { type: "call" }>): void {
    const method = this.#methods[message.index];
    if (method === undefined) return;
    const record: CallRecord = { server: method.server, tool: method.tool, durationMs: 0, ok: false };
    const pending: PendingCall = { record, started: performance.now(), controller: new AbortController() };
    this.#calls.push(record);
    this.#inFlight.set(message.callId, pending);
    const answered = (given: Answer) => {
      if (this.#finished || pending.controller.signal.aborted) return;
      this.#inFlight.delete(message.callId);
      const [answer, json] = answerJson(given, method);
      record.durationMs = performance.now() - pending.started;
      record.ok = answer.ok;
      if (!answer.ok) record.code = answer.error.code;
      this.#post({ type: "answer", runId: this.#runId, callId: message.callId, answer: json });
      const next = this.#queue.shift();
      if (next !== undefined) this.#start(next);
    };
    let args: JsonValue;
    try {
      args = JSON.parse(message.args) as JsonValue;
    } catch {
      answered({ ok: false, error: errorData(new Error("the arguments are not JSON"), method) });
      return;
    }
    this.#host.call(method.server, method.tool, args, pending.controller.signal).then(
      (value) => answered({ ok: true, value }),
      (error: unknown) => answered({ ok: false, error: errorData(error, method) }),
    );
  }

  #stop(kind: (typeof STOP_REASONS)[number]): void {
    Atomics.store(this.#slot.stop, 0, stopCode(kind));
    this.#post({ type: "stop", runId: this.#runId });
  }

  #kill(): void {
    if (this.#finished) return;
    this.#finish(
      {
        ok: false,
        kind: "timeout",
        message: `the program's time limit of ${this.#limits.timeoutMs} ms ran out while it ran, and its sandbox was ended`,
        logs: [],
      },
      true,
    );
  }

  #finish(done: WorkerDone, dead: boolean): void {
    this.#finished = true;
    clearTimeout(this.#watchdog);
    this.#queue.length = 0;
    // The program is gone: its calls still out are cancelled and their answers dropped.
    for (const pending of this.#inFlight.values()) {
      pending.controller.abort();
      pending.record.durationMs = performance.now() - pending.started;
      pending.record.code = "ABORTED";
    }
    this.#inFlight.clear();
    const durationMs = performance.now() - this.#started;
    const calls = this.#calls;
    this.#resolve(
      done.ok
        ? { ok: true, result: JSON.parse(done.result) as JsonValue, logs: done.logs, calls, durationMs }
        : {
            ok: false,
            kind: done.kind,
            message: done.message,
            ...(done.result === undefined ? {} : { result: JSON.parse(done.result) as JsonValue }),
            ...(done.at === undefined ? {} : { at: done.at }),
            logs: done.logs,
            calls,
            durationMs,
          },
    );
    this.#release(dead);
  }
}

interface ErrorData {
  name: string;
  code: string;
  message: string;
  serverId: string;
  toolName: string;
}

type Answer = { ok: true; value: JsonValue } | { ok: false; error: ErrorData };

/** A failed call as data for the program: the CompositionError's fields, or a generic code for any other error. */
function errorData(error: unknown, method: MethodSpec): ErrorData {
  const fields = (typeof error === "object" && error !== null ? error : {}) as Partial<Record<keyof ErrorData, unknown>>;
  const text = (value: unknown, fallback: string) => (typeof value === "string" ? value : fallback);
  return {
    name: text(fields.name, "Error"),
    code: text(fields.code, "HOST_ERROR"),
    message: text(fields.message, String(error)),
    serverId: text(fields.serverId, method.server),
    toolName: text(fields.toolName, method.tool),
  };
}

/** The answer and its JSON; an answer that is not JSON (a BigInt, a cycle) becomes an error for the program. */
function answerJson(answer: Answer, method: MethodSpec): [Answer, string] {
  try {
    const json = JSON.stringify(answer);
    if (json !== undefined) return [answer, json];
  } catch {
    // Handled below.
  }
  const failed: Answer = { ok: false, error: errorData(new Error("the host's answer is not JSON"), method) };
  return [failed, JSON.stringify(failed)];
}
