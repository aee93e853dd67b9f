import module from "node:module";
import { Worker } from "node:worker_threads";
import { PmcpError } from "../errors.js";
import type { CheckReply, CheckRequest, ProgramDiagnostic, TranspiledProgram } from "./check-protocol.js";

/** A program's check: runnable (its types erased), refused with diagnostics, or stopped by a limit. */
export type CheckOutcome =
  | { ok: true; program: TranspiledProgram }
  | { ok: false; kind: "type_error"; diagnostics: ProgramDiagnostic[]; omitted: number }
  | { ok: false; kind: "timeout" | "memory" | "invalid_input"; message: string };

export interface CheckerHostOptions {
  /** TypeScript's heap in each checker thread; the clients of 300 tools need ~150 MB. */
  heapMb?: number;
  /** The longest one check may run on its thread, counted from its start there, whatever the program's own time limit. */
  maxCheckMs?: number;
  /** Checks that run at once, each on a thread of its own. */
  threads?: number;
}

/** A program's time: its limit, counted from its arrival (a `performance.now()`), whatever it waited for since. */
export interface ProgramTime {
  limitMs: number;
  arrived: number;
}

/** Two threads at 512 MB: a check that runs long holds one of them, and the pool takes at most the 1 GB one thread had. */
const DEFAULT_THREADS = 2;
const DEFAULT_HEAP_MB = 512;
/** A real program checks in tens of milliseconds; ten seconds is types built to be slow. */
const DEFAULT_MAX_CHECK_MS = 10_000;
/**
 * How long a thread may go on with a check nobody waits for any more before it is ended. A new
 * thread costs about this much to start, so a check nearly done is let finish: a program sent with
 * `timeout_ms: 1` costs its thread a few milliseconds, not a restart.
 */
const ABANDONED_GRACE_MS = 1_000;
/**
 * A check that will be given up on (it has run this long, no real program's does) gets a standby
 * thread started beside it, one per such check, STANDBY_LEAD_MS before its limit: a ready thread is
 * there when it is given up on. A thread takes 1–2 s to start; started only at the abandonment, the
 * others' checks waited for it while the next bomb took the other thread. Not sooner: its start-up
 * takes a core the others' checks need while the bomb takes the other. Not for a check merely
 * given up on: most end within their grace.
 */
const STANDBY_AFTER_MS = 1_000;
const STANDBY_LEAD_MS = 3_000;
/**
 * Less time than this left to a program is not enough to check it (a warm check of a few lines
 * takes tens of milliseconds): it is answered at once, without taking a thread it would only hold
 * for nothing, as a loop of `timeout_ms: 1` type bombs did.
 */
export const MIN_CHECK_MS = 50;

type Stopped = { type: "stopped"; kind: "timeout" | "memory"; message: string };

interface Job {
  request: CheckRequest;
  /** The declarations a check is made against; an update's are in its request. */
  declarations: string;
  /** The program's time, for a check; an update has only the thread's limit. */
  time: ProgramTime | undefined;
  /** Set while it waits for a thread: its program's time running out there. */
  waiting: NodeJS.Timeout | undefined;
  settle(reply: CheckReply | Stopped): void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  /** What its checker holds. */
  declarations: string;
  /** The job it runs, also once given up on: the thread is busy until it answers. */
  job: Job | undefined;
  /** The job's limit, then the grace after it. */
  timer: NodeJS.Timeout | undefined;
  /** Until its job has run STANDBY_AFTER_MS. */
  standby: NodeJS.Timeout | undefined;
  /** Its job has run that long (or is given up on): a standby thread stands beside it. */
  long: boolean;
}

/**
 * The program checker (type-check.ts) in a pool of worker threads, each with a heap limit and
 * one check at a time, so that a program whose types take long holds one thread, not the
 * others' checks. A check runs at most `maxCheckMs` on its thread and never past its program's
 * time; then its program is answered, and a thread still busy with it after a grace is ended
 * and a fresh one takes its place. Time spent waiting for a free thread counts only against the
 * program's own limit. The server's own thread never runs TypeScript.
 */
export class CheckerHost {
  readonly #heapMb: number;
  readonly #maxCheckMs: number;
  readonly #size: number;
  /** The declarations in force: new threads start with them. */
  #declarations: string;
  readonly #threads = new Set<Thread>();
  readonly #queue: Job[] = [];
  #nextId = 0;
  #closed = false;

  private constructor(declarations: string, options: CheckerHostOptions) {
    this.#declarations = declarations;
    this.#heapMb = options.heapMb ?? DEFAULT_HEAP_MB;
    this.#maxCheckMs = options.maxCheckMs ?? DEFAULT_MAX_CHECK_MS;
    this.#size = options.threads ?? DEFAULT_THREADS;
  }

  /** A checker whose threads are pre-warmed with `declarations`; rejects when they do not compile. */
  static async create(declarations: string, options: CheckerHostOptions = {}): Promise<CheckerHost> {
    const checker = new CheckerHost(declarations, options);
    try {
      await Promise.all(Array.from({ length: checker.#size }, () => checker.#start()));
    } catch (error) {
      await checker.close();
      throw error;
    }
    return checker;
  }

  /** The `threadId`s of the threads in the pool, oldest first. */
  get threadIds(): number[] {
    return [...this.#threads].map((thread) => thread.worker.threadId);
  }

  /**
   * Checks a program within its time, which runs from its arrival, against `declarations`: those
   * given to `create` or to an `updateDeclarations` that succeeded (they are not compiled again).
   */
  check(code: string, declarations: string, time: ProgramTime): Promise<CheckOutcome> {
    return new Promise((resolve) => {
      this.#enqueue({
        request: { type: "check", id: this.#nextId++, code },
        declarations,
        time,
        waiting: undefined,
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

  /**
   * Makes `text` the declarations in force (new threads start with them), once one thread has
   * compiled them; rejects, keeping the old ones, when they do not compile.
   */
  updateDeclarations(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#enqueue({
        request: { type: "update", id: this.#nextId++, declarations: text },
        declarations: text,
        time: undefined,
        waiting: undefined,
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
    const closed = (job: Job) => job.settle({ type: "failed", id: job.request.id, message: "the checker was closed" });
    for (const job of this.#queue.splice(0)) closed(job);
    const threads = [...this.#threads];
    this.#threads.clear();
    for (const thread of threads) {
      clearTimeout(thread.timer);
      clearTimeout(thread.standby);
      if (thread.job !== undefined) closed(thread.job);
    }
    await Promise.all(threads.map((thread) => thread.worker.terminate()));
  }

  /** Starts a thread with the declarations in force; settles when it is ready, or failed to start. */
  #start(): Promise<void> {
    const worker = new Worker(new URL("./checker-thread.js", import.meta.url), {
      // The host's compile cache, if it has one (the CLI's), for the thread to use as well.
      workerData: { declarations: this.#declarations, compileCache: module.getCompileCacheDir?.() },
      // The host's flags (a loader, --input-type) are not the checker's business.
      execArgv: [],
      resourceLimits: { maxOldGenerationSizeMb: this.#heapMb },
    });
    const thread: Thread = {
      worker,
      ready: false,
      declarations: this.#declarations,
      job: undefined,
      timer: undefined,
      standby: undefined,
      long: false,
    };
    this.#threads.add(thread);
    return new Promise((resolve, reject) => {
      worker.on("message", (reply: CheckReply) => {
        if (reply.type === "ready") {
          thread.ready = true;
          resolve();
          this.#dispatch();
          this.#retireSurplus(thread);
        } else if (reply.type === "failed" && reply.id === -1) {
          const error = new PmcpError("INVALID_INPUT", reply.message);
          reject(error);
          this.#failedToStart(thread, error);
        } else this.#answered(thread, reply);
      });
      worker.on("error", (error: Error & { code?: string }) => {
        reject(error);
        this.#lost(thread, error.code === "ERR_WORKER_OUT_OF_MEMORY" ? "memory" : "failed", error.message);
      });
      worker.on("exit", () => {
        reject(new Error("the checker's thread exited"));
        this.#lost(thread, "failed", "the checker's thread exited");
      });
    });
  }

  #enqueue(job: Job): void {
    const settle = job.settle;
    let settled = false;
    job.settle = (reply) => {
      if (settled) return;
      settled = true;
      clearTimeout(job.waiting);
      settle(reply);
    };
    if (this.#closed) {
      job.settle({ type: "failed", id: job.request.id, message: "the checker was closed" });
      return;
    }
    const time = job.time;
    if (time !== undefined) {
      job.waiting = setTimeout(() => {
        const queued = this.#queue.indexOf(job);
        if (queued < 0) return;
        this.#queue.splice(queued, 1);
        const message = `the program's time limit of ${time.limitMs} ms ran out while it waited for a free type-checker; nothing was run`;
        job.settle({ type: "stopped", kind: "timeout", message });
      }, remaining(time));
    }
    this.#queue.push(job);
    this.#dispatch();
  }

  /** Gives waiting jobs to free threads, oldest job first; starts a thread when none is left. */
  #dispatch(): void {
    for (const thread of this.#threads) {
      if (this.#queue.length === 0) return;
      if (thread.ready && thread.job === undefined) this.#post(thread, this.#queue.shift()!);
    }
    // After threads that failed to start: each failure answers one waiting job, so this ends.
    if (this.#queue.length > 0 && this.#threads.size === 0 && !this.#closed) this.#start().catch(() => undefined);
  }

  #post(thread: Thread, job: Job): void {
    clearTimeout(job.waiting);
    if (job.time !== undefined && remaining(job.time) < MIN_CHECK_MS) {
      const message = `the program's time limit of ${job.time.limitMs} ms left less than ${MIN_CHECK_MS} ms to type-check it; nothing was run`;
      job.settle({ type: "stopped", kind: "timeout", message });
      this.#dispatch();
      return;
    }
    thread.job = job;
    const { request } = job;
    // A check carries its declarations only to a thread holding others (a program keeps the set it started with).
    const message: CheckRequest =
      request.type === "check" && job.declarations !== thread.declarations ? { ...request, declarations: job.declarations } : request;
    const ownLimit = this.#maxCheckMs;
    const programLeft = job.time === undefined ? Number.POSITIVE_INFINITY : remaining(job.time);
    const limit = Math.min(ownLimit, programLeft);
    thread.timer = setTimeout(() => this.#overran(thread, job, programLeft < ownLimit), limit);
    thread.standby = setTimeout(() => this.#standBy(thread), Math.max(STANDBY_AFTER_MS, limit - STANDBY_LEAD_MS));
    thread.worker.postMessage(message);
  }

  /** Its program stops waiting; the thread gets a grace to finish, then is ended. */
  #overran(thread: Thread, job: Job, programTime: boolean): void {
    const message =
      programTime && job.time !== undefined
        ? `the program's time limit of ${job.time.limitMs} ms ran out during its type-check; nothing was run`
        : stopped(job, `took longer than ${this.#maxCheckMs} ms`);
    job.settle({ type: "stopped", kind: "timeout", message });
    // TypeScript cannot be interrupted: only ending its thread stops a check.
    thread.timer = setTimeout(() => this.#replace(thread), ABANDONED_GRACE_MS);
  }

  /** Starts a thread beside one whose check runs long, so the pool keeps its size in ready threads. */
  #standBy(thread: Thread): void {
    clearTimeout(thread.standby);
    if (thread.long || this.#closed) return;
    thread.long = true;
    this.#start().catch(() => undefined);
  }

  /** Threads the pool keeps: its size, and one standby for each check that runs long. */
  #wanted(): number {
    let long = 0;
    for (const thread of this.#threads) if (thread.long) long++;
    return this.#size + long;
  }

  /** Ends an idle thread the pool no longer wants (a standby whose long check ended). */
  #retireSurplus(thread: Thread): void {
    if (this.#threads.size <= this.#wanted() || thread.job !== undefined || this.#queue.length > 0) return;
    this.#threads.delete(thread);
    void thread.worker.terminate();
  }

  #answered(thread: Thread, reply: CheckReply): void {
    const job = thread.job;
    if (job === undefined || !("id" in reply) || reply.id !== job.request.id) return;
    clearTimeout(thread.timer);
    clearTimeout(thread.standby);
    thread.job = undefined;
    thread.long = false;
    // Whatever its reply, a check that carried declarations made the thread take them first.
    if (job.request.type === "check" || reply.type === "updated") thread.declarations = job.declarations;
    job.settle(reply);
    this.#retireSurplus(thread);
    this.#dispatch();
  }

  /** The thread died under a check (its heap limit) or on its own. */
  #lost(thread: Thread, kind: "memory" | "failed", message: string): void {
    if (!this.#threads.has(thread) || this.#closed) return;
    if (!thread.ready) {
      this.#failedToStart(thread, new Error(message));
      return;
    }
    const job = thread.job;
    if (job !== undefined) {
      job.settle(
        kind === "memory"
          ? { type: "stopped", kind: "memory", message: stopped(job, `needed more than ${this.#heapMb} MB`) }
          : { type: "failed", id: job.request.id, message },
      );
    }
    this.#replace(thread);
  }

  /** Ends a thread and starts a fresh one in its place, unless its standby is that one; the others go on. */
  #replace(thread: Thread): void {
    clearTimeout(thread.timer);
    clearTimeout(thread.standby);
    this.#threads.delete(thread);
    void thread.worker.terminate();
    if (this.#closed || this.#threads.size >= this.#wanted()) return;
    // A failed start shows as the outcome of the oldest waiting job (#failedToStart).
    this.#start().catch(() => undefined);
  }

  /** A thread that did not start (after create, rare: its declarations had compiled); the oldest waiting job gets why. */
  #failedToStart(thread: Thread, error: Error): void {
    this.#threads.delete(thread);
    void thread.worker.terminate();
    const job = this.#queue.shift();
    job?.settle({ type: "failed", id: job.request.id, message: error.message });
    this.#dispatch();
  }
}

/** A job stopped by one of the thread's own limits, `why`. */
function stopped(job: Job, why: string): string {
  return job.request.type === "check" ? `type-checking the program ${why}; nothing was run` : `checking the new declarations ${why}`;
}

function remaining(time: ProgramTime): number {
  return Math.max(0, time.arrived + time.limitMs - performance.now());
}
