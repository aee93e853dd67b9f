import { type ChildProcess, fork } from "node:child_process";
import module from "node:module";
import { tmpdir } from "node:os";
import { PmcpError } from "../errors.js";
import type { CheckerStart, CheckReply, CheckRequest, ProgramDiagnostic, TranspiledProgram } from "./check-protocol.js";
import { checkerSnapshot, discardSnapshot } from "./checker-snapshot.js";

/** A program's check: runnable (its types erased), refused with diagnostics, or stopped by a limit. */
export type CheckOutcome =
  | { ok: true; program: TranspiledProgram }
  | { ok: false; kind: "type_error"; diagnostics: ProgramDiagnostic[]; omitted: number }
  | { ok: false; kind: "timeout" | "memory" | "invalid_input"; message: string };

export interface CheckerHostOptions {
  /** TypeScript's heap in each checker process; the clients of 300 tools need ~150 MB. */
  heapMb?: number;
  /** The longest one check may run in its process, counted from its start there, whatever the program's own time limit. */
  maxCheckMs?: number;
  /** Checks that run at once, each in a process of its own. */
  processes?: number;
  /** How long a caller counts as present after its last program arrived or was answered (default 30 s). */
  callerPresentMs?: number;
}

/** A program's time: its limit, counted from its arrival (a `performance.now()`), whatever it waited for since. */
export interface ProgramTime {
  limitMs: number;
  arrived: number;
}

/** Two processes at 512 MB: a check that runs long holds one of them, and the pool takes at most the 1 GB one checker had. */
const DEFAULT_PROCESSES = 2;
const DEFAULT_HEAP_MB = 512;
/** A real program checks in tens of milliseconds; ten seconds is types built to be slow. */
const DEFAULT_MAX_CHECK_MS = 10_000;
/**
 * How long a checker may go on with a check nobody waits for any more before it is ended. A new
 * checker costs about this much to start, so a check nearly done is let finish: a program sent with
 * `timeout_ms: 1` costs its checker a few milliseconds, not a restart.
 */
const ABANDONED_GRACE_MS = 1_000;
/**
 * A check that will be given up on (it has run this long, no real program's does) gets a standby
 * checker started beside it, one per such check, STANDBY_LEAD_MS before its limit: a ready checker is
 * there when it is given up on. A checker takes 1–2 s to start; started only at the abandonment, the
 * others' checks waited for it while the next bomb took the other checker. Not sooner: its start-up
 * takes a core the others' checks need while the bomb takes the other. Not for a check merely
 * given up on: most end within their grace.
 */
const STANDBY_AFTER_MS = 1_000;
const STANDBY_LEAD_MS = 3_000;
/**
 * Less time than this left to a program is not enough to check it (a warm check of a few lines
 * takes tens of milliseconds): it is answered at once, without taking a checker it would only hold
 * for nothing, as a loop of `timeout_ms: 1` type bombs did.
 */
export const MIN_CHECK_MS = 50;
/**
 * How long a caller counts as present after its last program arrived or was answered, unless told.
 * A caller present holds back its share of the checkers from the others: its next program, sent a
 * moment after the last one's answer, finds one free however many bombs another caller queues.
 */
const CALLER_PRESENT_MS = 30_000;
/** What of a checker process's stderr is kept: enough for V8's last words. */
const STDERR_TAIL_CHARS = 4096;

type Stopped = { type: "stopped"; kind: "timeout" | "memory"; message: string };

interface Job {
  request: CheckRequest;
  /** The declarations a check is made against; an update's are in its request. */
  declarations: string;
  /** The program's time, for a check; an update has only the checker's limit. */
  time: ProgramTime | undefined;
  /** Set while it waits for a checker: its program's time running out there. */
  waiting: NodeJS.Timeout | undefined;
  /** Who sent the program; undefined for an update, the pool's own job, which waits for no share. */
  caller: string | undefined;
  /** When a checker took it (a `performance.now()`). */
  posted: number | undefined;
  settle(reply: CheckReply | Stopped): void;
}

interface Checker {
  child: ChildProcess;
  ready: boolean;
  /** What its checker holds. */
  declarations: string;
  /** The job it runs, also once given up on: the checker is busy until it answers. */
  job: Job | undefined;
  /** The job's limit, then the grace after it. */
  timer: NodeJS.Timeout | undefined;
  /** Until its job has run STANDBY_AFTER_MS. */
  standby: NodeJS.Timeout | undefined;
  /** Its job has run that long (or is given up on): a standby checker stands beside it. */
  long: boolean;
  /**
   * While it starts, the caller whose program ended the checker it replaces, and how long that
   * program held it: the start counts against that caller's share, and once it is ready the caller
   * owes that time and the start's (see #owed).
   */
  startedFor: { caller: string; heldMs: number } | undefined;
}

/**
 * The program checker (type-check.ts) in a pool of child processes, each with a heap limit and
 * one check at a time, so that a program whose types take long holds one checker, not the
 * others' checks. A check runs at most `maxCheckMs` on its checker and never past its program's
 * time; then its program is answered, and a checker still busy with it after a grace is ended
 * and a fresh one takes its place. Time spent waiting for a free checker counts only against the
 * program's own limit. The server's own process never runs TypeScript.
 *
 * The checkers are shared fairly between callers: while several are present (see
 * `callerPresentMs`), each holds at most its share of the pool, a checker busy with a program
 * given up on, or starting in place of one ended under it, counted against the caller who sent
 * it; that caller then waits as long as the program held its checker (#owed), and a check given
 * up on is ended at once, not after a grace. One caller's type bombs then wait behind each other,
 * and the others' programs find a checker free and a core to run on.
 */
export class CheckerHost {
  readonly #heapMb: number;
  readonly #maxCheckMs: number;
  readonly #callerPresentMs: number;
  readonly #size: number;
  /** The start-up snapshot checkers start from, while it serves. */
  #snapshot = checkerSnapshot();
  /** The declarations in force: new checkers start with them. */
  #declarations: string;
  readonly #checkers = new Set<Checker>();
  readonly #queue: Job[] = [];
  /** When each caller's last program arrived or was answered. */
  readonly #seen = new Map<string, number>();
  /**
   * Until when each caller's programs wait while another caller is present: a caller whose program
   * ended its checker (given up on, or out of memory) waits, once the replacement is ready (or at
   * once, when a standby takes its place), as long as that program held the checker and the
   * replacement took to start. Its type bombs then take less than its share of the machine:
   * on two cores a checker is half of it, and the server answering every caller needs the other.
   */
  readonly #owed = new Map<string, number>();
  /** Set while a free checker waits for a present caller to go, so that another's job may have it. */
  #recount: NodeJS.Timeout | undefined;
  #nextId = 0;
  #closed = false;
  #closing: Promise<void> | undefined;

  private constructor(declarations: string, options: CheckerHostOptions) {
    this.#declarations = declarations;
    this.#heapMb = options.heapMb ?? DEFAULT_HEAP_MB;
    this.#maxCheckMs = options.maxCheckMs ?? DEFAULT_MAX_CHECK_MS;
    this.#callerPresentMs = options.callerPresentMs ?? CALLER_PRESENT_MS;
    this.#size = options.processes ?? DEFAULT_PROCESSES;
  }

  /**
   * A host whose checkers are pre-warmed with `declarations`; rejects when they do not compile, or
   * when `signal` aborts first: the checkers starting are then ended at once, not left to warm up.
   */
  static async create(declarations: string, options: CheckerHostOptions = {}, signal?: AbortSignal): Promise<CheckerHost> {
    if (signal?.aborted) throw new PmcpError("SERVER_FAILED", "the checker was closed before it started");
    const checker = new CheckerHost(declarations, options);
    const abort = () => void checker.close();
    signal?.addEventListener("abort", abort, { once: true });
    try {
      await Promise.all(Array.from({ length: checker.#size }, () => checker.#start()));
    } catch (error) {
      await checker.close();
      throw signal?.aborted ? new PmcpError("SERVER_FAILED", "the checker was closed while it started") : error;
    } finally {
      signal?.removeEventListener("abort", abort);
    }
    return checker;
  }

  /** The pids of the checker processes in the pool, oldest first. */
  get pids(): number[] {
    return [...this.#checkers].map((checker) => checker.child.pid ?? -1);
  }

  /**
   * Checks a program within its time, which runs from its arrival, against `declarations`: those
   * given to `create` or to an `updateDeclarations` that succeeded (they are not compiled again).
   * `caller` names who sent it, for the pool's fair shares; programs of no named caller share one.
   */
  check(code: string, declarations: string, time: ProgramTime, caller = ""): Promise<CheckOutcome> {
    return new Promise((resolve) => {
      this.#enqueue({
        request: { type: "check", id: this.#nextId++, code },
        declarations,
        time,
        waiting: undefined,
        caller,
        posted: undefined,
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
   * Makes `text` the declarations in force (new checkers start with them), once one checker has
   * compiled them; rejects, keeping the old ones, when they do not compile.
   */
  updateDeclarations(text: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#enqueue({
        request: { type: "update", id: this.#nextId++, declarations: text },
        declarations: text,
        time: undefined,
        waiting: undefined,
        caller: undefined,
        posted: undefined,
        settle: (reply) => {
          if (reply.type === "updated") {
            this.#declarations = text;
            resolve();
          } else reject(new PmcpError("INVALID_INPUT", reply.type === "failed" || reply.type === "stopped" ? reply.message : "no answer"));
        },
      });
    });
  }

  /** Ends every checker; resolves once all are gone, for every caller (an abort's close and create's own overlap). */
  close(): Promise<void> {
    this.#closing ??= this.#end();
    return this.#closing;
  }

  async #end(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#recount);
    const closed = (job: Job) => job.settle({ type: "failed", id: job.request.id, message: "the checker was closed" });
    for (const job of this.#queue.splice(0)) closed(job);
    const checkers = [...this.#checkers];
    this.#checkers.clear();
    for (const checker of checkers) {
      clearTimeout(checker.timer);
      clearTimeout(checker.standby);
      if (checker.job !== undefined) closed(checker.job);
    }
    await Promise.all(checkers.map((checker) => end(checker.child)));
  }

  /** Starts a checker process with the declarations in force; settles when it is ready, or failed to start. */
  #start(startedFor?: Checker["startedFor"]): Promise<void> {
    const { NODE_OPTIONS: _hostOptions, ...env } = process.env;
    const cache = module.getCompileCacheDir?.();
    const snapshot = this.#snapshot;
    const starting = performance.now();
    const child = fork(new URL("./checker-process.js", import.meta.url), [], {
      // The host's flags (a loader, --input-type, NODE_OPTIONS) are not the checker's business; its heap is.
      execArgv: [`--max-old-space-size=${this.#heapMb}`, ...(snapshot === undefined ? [] : ["--snapshot-blob", snapshot])],
      // The host's compile cache, if it has one (the CLI's): the compiler's 9 MB are not compiled at every start.
      env: cache === undefined ? env : { ...env, NODE_COMPILE_CACHE: cache },
      serialization: "advanced",
      stdio: ["ignore", "ignore", "pipe", "ipc"],
      // V8 ends a process past its heap limit with abort(), which may leave a core file in the working
      // directory, the user's project; the checker reads no relative path.
      cwd: tmpdir(),
    });
    const checker: Checker = {
      child,
      ready: false,
      declarations: this.#declarations,
      job: undefined,
      timer: undefined,
      standby: undefined,
      long: false,
      startedFor,
    };
    this.#checkers.add(checker);
    // V8 says why it ended on stderr ("JavaScript heap out of memory"); the last of it is kept.
    let stderr = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL_CHARS);
    });
    return new Promise((resolve, reject) => {
      child.on("message", (reply: CheckReply) => {
        if (reply.type === "ready") {
          checker.ready = true;
          if (startedFor !== undefined) this.#owe(startedFor.caller, startedFor.heldMs + performance.now() - starting);
          resolve();
          this.#dispatch();
          this.#retireSurplus(checker);
        } else if (reply.type === "failed" && reply.id === -1) {
          const error = new PmcpError("INVALID_INPUT", reply.message);
          reject(error);
          this.#failedToStart(checker, error);
        } else this.#answered(checker, reply);
      });
      child.on("error", (error) => {
        reject(error);
        this.#lost(checker, "failed", `the checker's process failed: ${error.message}`);
      });
      child.on("exit", (code, signal) => {
        // A snapshot this Node cannot start from (damaged, or its build went wrong): the checker starts without it.
        if (!checker.ready && snapshot !== undefined && snapshot === this.#snapshot && !this.#closed && this.#checkers.has(checker)) {
          this.#snapshot = undefined;
          discardSnapshot(snapshot);
          this.#checkers.delete(checker);
          this.#start().then(resolve, reject);
          return;
        }
        const memory = /heap out of memory|Allocation failed/.test(stderr);
        const why = `the checker's process exited (${signal ?? `code ${code}`})`;
        reject(new Error(why));
        this.#lost(checker, memory ? "memory" : "failed", why);
      });
      child.send({ declarations: this.#declarations } satisfies CheckerStart);
    });
  }

  #enqueue(job: Job): void {
    const settle = job.settle;
    let settled = false;
    job.settle = (reply) => {
      if (settled) return;
      settled = true;
      clearTimeout(job.waiting);
      if (job.caller !== undefined) this.#seen.set(job.caller, performance.now());
      settle(reply);
    };
    if (job.caller !== undefined) this.#seen.set(job.caller, performance.now());
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

  /** Gives waiting jobs to free checkers, oldest first of those whose caller is within its share; starts a checker when none is left. */
  #dispatch(): void {
    clearTimeout(this.#recount);
    this.#recount = undefined;
    for (const checker of this.#checkers) {
      if (this.#queue.length === 0) return;
      if (!checker.ready || checker.job !== undefined) continue;
      const next = this.#nextJob();
      if (next < 0) {
        this.#recountWhenOneGoes();
        break;
      }
      this.#post(checker, this.#queue.splice(next, 1)[0]!);
    }
    // After checkers that failed to start: each failure answers one waiting job, so this ends.
    if (this.#queue.length > 0 && this.#checkers.size === 0 && !this.#closed) this.#start().catch(() => undefined);
  }

  /** The index of the oldest waiting job whose caller holds fewer checkers than its share, or -1. */
  #nextJob(): number {
    const held = new Map<string, number>();
    for (const checker of this.#checkers) {
      const caller = checker.job?.caller ?? (checker.ready ? undefined : checker.startedFor?.caller);
      if (caller !== undefined) held.set(caller, (held.get(caller) ?? 0) + 1);
    }
    const present = this.#present().size;
    const share = Math.max(1, Math.floor(this.#size / present));
    const now = performance.now();
    const owing = (caller: string) => present > 1 && (this.#owed.get(caller) ?? 0) > now;
    return this.#queue.findIndex((job) => job.caller === undefined || ((held.get(job.caller) ?? 0) < share && !owing(job.caller)));
  }

  #owe(caller: string, ms: number): void {
    const until = performance.now() + ms;
    if (until > (this.#owed.get(caller) ?? 0)) this.#owed.set(caller, until);
  }

  /** Callers with a job in the pool, or seen within `callerPresentMs`; those seen before are forgotten. */
  #present(): Set<string> {
    const now = performance.now();
    const present = new Set<string>();
    for (const [caller, seen] of this.#seen) {
      if (now - seen < this.#callerPresentMs) present.add(caller);
      else this.#seen.delete(caller);
    }
    for (const job of this.#queue) if (job.caller !== undefined) present.add(job.caller);
    for (const checker of this.#checkers) if (checker.job?.caller !== undefined) present.add(checker.job.caller);
    return present;
  }

  /**
   * A free checker is held back for callers present only by their last visit, or from callers that
   * owe time: look again when the first of them goes, or the first debt is paid.
   */
  #recountWhenOneGoes(): void {
    const now = performance.now();
    for (const [caller, until] of this.#owed) if (until <= now) this.#owed.delete(caller);
    const next = Math.min(...[...this.#seen.values()].map((seen) => seen + this.#callerPresentMs), ...this.#owed.values());
    if (Number.isFinite(next)) this.#recount = setTimeout(() => this.#dispatch(), Math.max(0, next - now));
  }

  #post(checker: Checker, job: Job): void {
    clearTimeout(job.waiting);
    if (job.time !== undefined && remaining(job.time) < MIN_CHECK_MS) {
      const message = `the program's time limit of ${job.time.limitMs} ms left less than ${MIN_CHECK_MS} ms to type-check it; nothing was run`;
      job.settle({ type: "stopped", kind: "timeout", message });
      this.#dispatch();
      return;
    }
    checker.job = job;
    job.posted = performance.now();
    const { request } = job;
    // A check carries its declarations only to a checker holding others (a program keeps the set it started with).
    const message: CheckRequest =
      request.type === "check" && job.declarations !== checker.declarations ? { ...request, declarations: job.declarations } : request;
    const ownLimit = this.#maxCheckMs;
    const programLeft = job.time === undefined ? Number.POSITIVE_INFINITY : remaining(job.time);
    const limit = Math.min(ownLimit, programLeft);
    checker.timer = setTimeout(() => this.#overran(checker, job, programLeft < ownLimit), limit);
    checker.standby = setTimeout(() => this.#standBy(checker), Math.max(STANDBY_AFTER_MS, limit - STANDBY_LEAD_MS));
    checker.child.send(message);
  }

  /**
   * Its program stops waiting; the checker gets a grace to finish, then is ended. Not while another
   * caller is present: what is left of a check nobody waits for would take a core from that caller.
   */
  #overran(checker: Checker, job: Job, programTime: boolean): void {
    const message =
      programTime && job.time !== undefined
        ? `the program's time limit of ${job.time.limitMs} ms ran out during its type-check; nothing was run`
        : stopped(job, `took longer than ${this.#maxCheckMs} ms`);
    job.settle({ type: "stopped", kind: "timeout", message });
    // TypeScript cannot be interrupted: only ending its checker stops a check.
    if ([...this.#present()].some((caller) => caller !== job.caller)) {
      this.#replace(checker, job);
      return;
    }
    checker.timer = setTimeout(() => this.#replace(checker, job), ABANDONED_GRACE_MS);
  }

  /** Starts a checker beside one whose check runs long, so the pool keeps its size in ready checkers. */
  #standBy(checker: Checker): void {
    clearTimeout(checker.standby);
    if (checker.long || this.#closed) return;
    checker.long = true;
    this.#start().catch(() => undefined);
  }

  /** Checkers the pool keeps: its size, and one standby for each check that runs long. */
  #wanted(): number {
    let long = 0;
    for (const checker of this.#checkers) if (checker.long) long++;
    return this.#size + long;
  }

  /** Ends an idle checker the pool no longer wants (a standby whose long check ended). */
  #retireSurplus(checker: Checker): void {
    if (this.#checkers.size <= this.#wanted() || checker.job !== undefined || this.#queue.length > 0) return;
    this.#checkers.delete(checker);
    void end(checker.child);
  }

  #answered(checker: Checker, reply: CheckReply): void {
    const job = checker.job;
    if (job === undefined || !("id" in reply) || reply.id !== job.request.id) return;
    clearTimeout(checker.timer);
    clearTimeout(checker.standby);
    checker.job = undefined;
    checker.long = false;
    // Whatever its reply, a check that carried declarations made the checker take them first.
    if (job.request.type === "check" || reply.type === "updated") checker.declarations = job.declarations;
    job.settle(reply);
    this.#retireSurplus(checker);
    this.#dispatch();
  }

  /** The checker died under a check (its heap limit) or on its own. */
  #lost(checker: Checker, kind: "memory" | "failed", message: string): void {
    if (!this.#checkers.has(checker) || this.#closed) return;
    if (!checker.ready) {
      this.#failedToStart(checker, new Error(message));
      return;
    }
    const job = checker.job;
    if (job !== undefined) {
      job.settle(
        kind === "memory"
          ? { type: "stopped", kind: "memory", message: stopped(job, `needed more than ${this.#heapMb} MB`) }
          : { type: "failed", id: job.request.id, message },
      );
    }
    this.#replace(checker, job);
  }

  /**
   * Ends a checker and starts a fresh one in its place, unless its standby is that one; the others go
   * on. `job` is the one it ends under, if any: its caller's, the start is counted against that caller.
   */
  #replace(checker: Checker, job: Job | undefined): void {
    clearTimeout(checker.timer);
    clearTimeout(checker.standby);
    this.#checkers.delete(checker);
    void end(checker.child);
    const owed =
      job?.caller === undefined || job.posted === undefined ? undefined : { caller: job.caller, heldMs: performance.now() - job.posted };
    if (this.#closed || this.#checkers.size >= this.#wanted()) {
      if (owed !== undefined) this.#owe(owed.caller, owed.heldMs);
      // Its standby is ready in its place: what waited because the ended check counted against its caller goes now.
      this.#dispatch();
      return;
    }
    // A failed start shows as the outcome of the oldest waiting job (#failedToStart).
    this.#start(owed).catch(() => undefined);
  }

  /** A checker that did not start (after create, rare: its declarations had compiled); the oldest waiting job gets why. */
  #failedToStart(checker: Checker, error: Error): void {
    this.#checkers.delete(checker);
    void end(checker.child);
    const job = this.#queue.shift();
    job?.settle({ type: "failed", id: job.request.id, message: error.message });
    this.#dispatch();
  }
}

/** A job stopped by one of the checker's own limits, `why`. */
function stopped(job: Job, why: string): string {
  return job.request.type === "check" ? `type-checking the program ${why}; nothing was run` : `checking the new declarations ${why}`;
}

function remaining(time: ProgramTime): number {
  return Math.max(0, time.arrived + time.limitMs - performance.now());
}

/** Ends a checker process (TypeScript cannot be interrupted: a check is stopped so) and resolves once it is gone. */
function end(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGKILL");
  });
}
