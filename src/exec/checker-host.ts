import { Worker } from "node:worker_threads";
import { PmcpError } from "../errors.js";
import type { CheckReply, CheckRequest, ProgramDiagnostic, TranspiledProgram } from "./check-protocol.js";

/** A program's check: runnable (its types erased), refused with diagnostics, or stopped by a limit. */
export type CheckOutcome =
  | { ok: true; program: TranspiledProgram }
  | { ok: false; kind: "type_error"; diagnostics: ProgramDiagnostic[]; omitted: number }
  | { ok: false; kind: "timeout" | "memory" | "invalid_input"; message: string };

export interface CheckerHostOptions {
  /** TypeScript's heap in the checker's thread; the clients of 300 tools need ~150 MB. */
  heapMb?: number;
  /** The longest one check may take, whatever the program's own time limit. */
  maxCheckMs?: number;
}

const DEFAULT_HEAP_MB = 1024;
/** A real program checks in tens of milliseconds; ten seconds is types built to be slow. */
const DEFAULT_MAX_CHECK_MS = 10_000;

interface Job {
  request: CheckRequest;
  limitMs: number;
  /** Whether its thread has it: then only ending the thread stops it. */
  posted: boolean;
  settle(reply: CheckReply | { type: "stopped"; kind: "timeout" | "memory"; message: string }): void;
}

/**
 * The program checker (type-check.ts) in a worker thread with a heap limit, one check at a
 * time. A check that passes its deadline or the heap limit ends the thread; a new one, with
 * the same declarations, takes the next check. The server's own thread never runs TypeScript.
 */
export class CheckerHost {
  readonly #heapMb: number;
  readonly #maxCheckMs: number;
  #declarations: string;
  #worker!: Worker;
  #ready!: Promise<void>;
  readonly #queue: Job[] = [];
  #current: Job | undefined;
  #nextId = 0;
  #closed = false;

  private constructor(declarations: string, options: CheckerHostOptions) {
    this.#declarations = declarations;
    this.#heapMb = options.heapMb ?? DEFAULT_HEAP_MB;
    this.#maxCheckMs = options.maxCheckMs ?? DEFAULT_MAX_CHECK_MS;
    this.#start();
  }

  /** A checker pre-warmed with `declarations`; rejects when they do not compile. */
  static async create(declarations: string, options: CheckerHostOptions = {}): Promise<CheckerHost> {
    const checker = new CheckerHost(declarations, options);
    try {
      await checker.#ready;
    } catch (error) {
      await checker.close();
      throw error;
    }
    return checker;
  }

  /** Checks a program within `timeoutMs` (time waiting behind other checks counts). */
  check(code: string, timeoutMs: number): Promise<CheckOutcome> {
    const limitMs = Math.min(timeoutMs, this.#maxCheckMs);
    return new Promise((resolve) => {
      this.#enqueue({
        request: { type: "check", id: this.#nextId++, code },
        limitMs,
        posted: false,
        settle: (reply) => {
          if (reply.type === "stopped") resolve({ ok: false, kind: reply.kind, message: reply.message });
          else if (reply.type === "failed") resolve({ ok: false, kind: "invalid_input", message: reply.message });
          else if (reply.type === "checked" && reply.program !== undefined) resolve({ ok: true, program: reply.program });
          else if (reply.type === "checked")
            resolve({ ok: false, kind: "type_error", diagnostics: reply.diagnostics, omitted: reply.omitted });
        },
      });
    });
  }

  /** Replaces the declarations; rejects, keeping the old ones, when the new ones do not compile. */
  updateDeclarations(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#enqueue({
        request: { type: "update", id: this.#nextId++, declarations: text },
        // Declarations that take TypeScript too long are refused like any that do not compile.
        limitMs: this.#maxCheckMs,
        posted: false,
        settle: (reply) => {
          if (reply.type === "updated") {
            this.#declarations = text;
            resolve();
          } else reject(new PmcpError("INVALID_INPUT", reply.type === "failed" || reply.type === "stopped" ? reply.message : "no answer"));
        },
      });
    });
  }

  async close(): Promise<void> {
    this.#closed = true;
    const waiting = this.#current === undefined ? this.#queue.splice(0) : [this.#current, ...this.#queue.splice(0)];
    this.#current = undefined;
    for (const job of waiting) job.settle({ type: "failed", id: job.request.id, message: "the checker was closed" });
    await this.#worker.terminate();
  }

  #start(): void {
    const worker = new Worker(new URL("./checker-thread.js", import.meta.url), {
      workerData: { declarations: this.#declarations },
      // The host's flags (a loader, --input-type) are not the checker's business.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.#heapMb },
    });
    this.#worker = worker;
    this.#ready = new Promise((resolve, reject) => {
      const onMessage = (reply: CheckReply) => {
        if (reply.type === "ready") resolve();
        else if (reply.type === "failed" && reply.id === -1) reject(new PmcpError("INVALID_INPUT", reply.message));
        else this.#answer(reply);
      };
      worker.on("message", onMessage);
      worker.on("error", (error: Error & { code?: string }) => {
        reject(error);
        this.#lost(worker, error.code === "ERR_WORKER_OUT_OF_MEMORY" ? "memory" : "failed", error.message);
      });
      worker.on("exit", () => this.#lost(worker, "failed", "the checker's thread exited"));
    });
    // A restart's failure shows as the next check's outcome.
    this.#ready.catch(() => undefined);
  }

  /** Queues a job with its time limit running from now: waiting behind other checks counts. */
  #enqueue(job: Job): void {
    if (this.#closed) {
      job.settle({ type: "failed", id: job.request.id, message: "the checker was closed" });
      return;
    }
    const timer = setTimeout(() => this.#expire(job), job.limitMs);
    const settle = job.settle;
    let settled = false;
    job.settle = (reply) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      settle(reply);
    };
    this.#queue.push(job);
    void this.#pump();
  }

  #expire(job: Job): void {
    const queued = this.#queue.indexOf(job);
    if (queued >= 0) {
      this.#queue.splice(queued, 1);
      job.settle(this.#timedOut(job));
    } else if (this.#current === job) {
      // TypeScript cannot be interrupted: its thread goes, and a fresh one (with the declarations in force) takes the queue.
      if (job.posted) this.#restart();
      this.#finish(job, this.#timedOut(job));
    }
  }

  async #pump(): Promise<void> {
    if (this.#current !== undefined || this.#closed) return;
    const job = this.#queue.shift();
    if (job === undefined) return;
    this.#current = job;
    const worker = this.#worker;
    try {
      await this.#ready;
    } catch (error) {
      this.#finish(job, { type: "failed", id: job.request.id, message: (error as Error).message });
      return;
    }
    if (this.#current !== job || worker !== this.#worker) return;
    job.posted = true;
    worker.postMessage(job.request);
  }

  #timedOut(job: Job): { type: "stopped"; kind: "timeout"; message: string } {
    const what = job.request.type === "check" ? "type-checking the program" : "checking the new declarations";
    const after = job.request.type === "check" ? "; nothing was run" : "";
    return { type: "stopped", kind: "timeout", message: `${what} took longer than ${job.limitMs} ms${after}` };
  }

  #answer(reply: CheckReply): void {
    const job = this.#current;
    if (job === undefined || !("id" in reply) || reply.id !== job.request.id) return;
    this.#finish(job, reply);
  }

  #finish(job: Job, reply: Parameters<Job["settle"]>[0]): void {
    if (this.#current === job) this.#current = undefined;
    job.settle(reply);
    void this.#pump();
  }

  /** The thread died under a check (its heap limit) or on its own. */
  #lost(worker: Worker, kind: "memory" | "failed", message: string): void {
    if (worker !== this.#worker || this.#closed) return;
    const job = this.#current;
    this.#restart();
    if (job === undefined) return;
    this.#finish(
      job,
      kind === "memory"
        ? { type: "stopped", kind: "memory", message: `type-checking the program needed more than ${this.#heapMb} MB; nothing was run` }
        : { type: "failed", id: job.request.id, message },
    );
  }

  #restart(): void {
    const old = this.#worker;
    this.#start();
    void old.terminate();
  }
}
