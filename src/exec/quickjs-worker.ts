// A sandbox worker: runs one program at a time, each in a fresh QuickJS VM (WASM, its own
// linear memory) that is disposed when the program ends, however it ends.
import { readFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { jsonDepth } from "@pmcp-codegen/runtime/internal/json";
import { type JSValueHandle, MAX_STACK_SIZE, QuickJS, type QuickJSOptions } from "quickjs-wasi";
import { count } from "../count.js";
import type { FailureKind, ProgramPosition } from "./executor.js";
import type { Limits } from "./limits.js";
import { type FromWorker, msUntil, stopKind, type ToWorker, type WorkerDone } from "./protocol.js";
import { MAX_RESULT_DEPTH, truncateJson } from "./result-json.js";

const { module, stop, heapBytes } = workerData as { module: QuickJSOptions["wasm"]; stop: Int32Array; heapBytes: number };
const port = parentPort;
if (port === null) throw new Error("quickjs-worker runs only as a worker thread");

/** The prelude as a VM evaluates it: guest/prelude.ts and the rules it imports, bundled by scripts/bundle-guest.mjs. */
const GUEST_PRELUDE = readFileSync(new URL("./guest/prelude.vm.js", import.meta.url), "utf8");

const MESSAGE_LIMIT = 2000;
const PROGRAM_START = "(async function () {";

interface Run {
  runId: number;
  limits: Limits;
  deadline: number;
  vm: QuickJS;
  /** The prelude's `answer(callId, answerJson)`, which settles the promise a call's caller awaits. */
  answer: JSValueHandle | undefined;
  /** Calls asked for and not yet answered. */
  calls: Set<number>;
  logs: string[];
  logBytes: number;
  /** Why the program must stop; the interrupt handler stops it at its next look. */
  stopping: { kind: FailureKind; message: string; at?: ProgramPosition } | undefined;
  /** What the guest's runner reported: "R" + result JSON or "E" + error JSON. */
  settled: string | undefined;
  timer: NodeJS.Timeout;
  finished: boolean;
}

let current: Run | undefined;
/**
 * A VM made ahead, between programs, so that starting one costs a program nothing (creating a
 * VM takes ~3 ms). Each VM still runs exactly one program.
 */
let spare: { heapBytes: number; ready: Promise<FreshVm> } | undefined;

/** A new VM and its prelude, compiled but not yet called. */
interface FreshVm {
  vm: QuickJS;
  prelude: JSValueHandle;
}

async function createVm(limit: number): Promise<FreshVm> {
  const vm = await QuickJS.create({
    wasm: module,
    memoryLimit: limit,
    // Deep recursion then throws a catchable RangeError instead of overrunning the WASM stack.
    maxStackSize: MAX_STACK_SIZE - 128 * 1024,
    timezoneOffset: 0,
    // QuickJS calls this every few thousand instructions, and only a few hundred times a second in
    // a loop of `await`s: each call looks at the clock, or such a loop would overrun its deadline.
    interruptHandler: () => current !== undefined && shouldStop(current),
  });
  return { vm, prelude: vm.evalCode(GUEST_PRELUDE, "pmcp-prelude.js") };
}

function prepareSpare(limit: number): void {
  const ready = createVm(limit);
  // A failure shows when the VM is taken, as that program's failure.
  ready.catch(() => undefined);
  spare = { heapBytes: limit, ready };
}

function takeVm(limit: number): Promise<FreshVm> {
  const ready = spare?.heapBytes === limit ? spare.ready : createVm(limit);
  spare = undefined;
  return ready;
}

function post(message: FromWorker): void {
  port?.postMessage(message);
}

function shouldStop(run: Run): boolean {
  if (run.stopping !== undefined) return true;
  const kind = stopKind(Atomics.load(stop, 0));
  if (kind !== undefined) run.stopping = { kind, message: stopMessage(kind, run.limits) };
  else if (Date.now() >= run.deadline) run.stopping = { kind: "timeout", message: stopMessage("timeout", run.limits) };
  return run.stopping !== undefined;
}

function stopMessage(kind: FailureKind, limits: Limits): string {
  if (kind === "call_limit") return `the program made more than ${count(limits.maxCalls, "tool call")}`;
  // Counted from its arrival: its type-check and its wait for a sandbox may have taken part of it.
  return `the program's time limit of ${limits.timeoutMs} ms ran out while it ran`;
}

function clip(text: string): string {
  return text.length <= MESSAGE_LIMIT ? text : `${text.slice(0, MESSAGE_LIMIT)}…`;
}

async function start(message: Extract<ToWorker, { type: "run" }>): Promise<void> {
  const { runId, limits, deadline } = message;
  const { vm, prelude } = await takeVm(limits.heapBytes);
  const run: Run = {
    runId,
    limits,
    deadline,
    vm,
    answer: undefined,
    calls: new Set(),
    logs: [],
    logBytes: 0,
    stopping: undefined,
    settled: undefined,
    // Fires only while the program waits for calls; a running program meets the interrupt handler. The
    // timer's clock is not Date.now()'s and may fire a moment before it reads the deadline: the time is up.
    timer: setTimeout(() => {
      shouldStop(run);
      run.stopping ??= { kind: "timeout", message: stopMessage("timeout", run.limits) };
      settle(run);
    }, msUntil(deadline)),
    finished: false,
  };
  current = run;
  try {
    const bridges = [
      // Returns nothing: a handle returned here would be kept alive for the VM's lifetime.
      vm.newFunction("call", (callId, index, args) => {
        const id = callId.toNumber();
        run.calls.add(id);
        post({ type: "call", runId, callId: id, index: index.toNumber(), args: args.toString() });
        return vm.undefined;
      }),
      vm.newFunction("log", (level, text) => {
        addLog(run, level.toString(), text.toString());
        return vm.undefined;
      }),
      vm.newFunction("done", (settled) => {
        run.settled = settled.toString();
        return vm.undefined;
      }),
    ];
    const guest = vm.callFunction(prelude, vm.undefined, ...bridges, vm.newString(message.bindings));
    run.answer = guest.getProp("answer");
    let program: JSValueHandle;
    try {
      // On the first line, so that line numbers in errors are the program's own.
      program = vm.evalCode(`${PROGRAM_START}${message.code}\n})`, "program.js");
    } catch (error) {
      run.stopping ??= syntaxError(error);
      return;
    }
    vm.callFunction(guest.getProp("run"), vm.undefined, program);
    vm.executePendingJobs();
  } catch (error) {
    run.stopping ??= classify(error);
  } finally {
    settle(run);
  }
}

/** What a failure outside the program's own promise chain was: a stop, the memory limit, a setup problem. */
function classify(error: unknown): { kind: FailureKind; message: string } {
  const text = describeHostError(error);
  if (/out of memory/.test(text)) return { kind: "memory", message: "the program used more memory than its limit" };
  return { kind: "uncaught", message: clip(text) };
}

/** A compile error, with its position in the program's code. */
function syntaxError(error: unknown): { kind: FailureKind; message: string; at?: ProgramPosition } {
  const message = clip(describeHostError(error));
  const at = /program\.js:(\d+):(\d+)/.exec(String((error as { stack?: unknown }).stack));
  return { kind: "invalid_input", message, ...(at === null ? {} : codePosition(Number(at[1]), Number(at[2]))) };
}

/**
 * A position in program.js as one in the program's code, whose first line follows the wrapper's
 * opening; none for line 0, where QuickJS puts an error it has no position for (`null.x`).
 */
function codePosition(line: number, column: number): { at?: ProgramPosition } {
  if (line < 1) return {};
  return { at: { line, column: line === 1 ? column - PROGRAM_START.length : column } };
}

function describeHostError(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return String(error);
}

function addLog(run: Run, level: string, text: string): void {
  if (run.stopping !== undefined) return;
  const line = level === "log" ? text : `${level}: ${text}`;
  const bytes = Buffer.byteLength(line);
  const limit = run.limits.maxOutputBytes;
  if (run.logBytes + bytes > limit) {
    // Stopped only once the logs really pass the limit; the marker then takes the place of as many
    // of the last lines as it needs, so that what is returned stays within it.
    const marker = `…[logs cut at ${count(limit, "byte")}]`;
    while (run.logs.length > 0 && run.logBytes + Buffer.byteLength(marker) > limit) run.logBytes -= Buffer.byteLength(run.logs.pop()!);
    run.logs.push(marker);
    run.logBytes += Buffer.byteLength(marker);
    run.stopping = { kind: "output_limit", message: `the program's logs passed ${count(limit, "byte")}` };
    return;
  }
  run.logs.push(line);
  run.logBytes += bytes;
}

function answer(message: Extract<ToWorker, { type: "answer" }>): void {
  const run = current;
  if (run === undefined || run.runId !== message.runId || run.finished) return;
  if (run.answer === undefined || !run.calls.delete(message.callId)) return;
  const { vm } = run;
  // Each handle made here is freed here: what the program keeps of the answer is the guest's to hold.
  const callId = vm.newNumber(message.callId);
  let text: JSValueHandle | undefined;
  try {
    text = vm.newString(message.answer);
    vm.callFunction(run.answer, vm.undefined, callId, text).dispose();
    vm.executePendingJobs();
  } catch (error) {
    run.stopping ??= classify(error);
  } finally {
    callId.dispose();
    text?.dispose();
  }
  settle(run);
}

/** Ends the run when its program has settled, must stop, or waits for nothing that can come. */
function settle(run: Run): void {
  if (run.finished) return;
  shouldStop(run);
  let outcome: WorkerDone;
  if (run.stopping !== undefined) {
    outcome = { ok: false, ...run.stopping, logs: run.logs };
  } else if (run.settled !== undefined) {
    outcome = settledOutcome(run, run.settled);
  } else if (run.calls.size === 0) {
    outcome = { ok: false, kind: "uncaught", message: "the program awaits a promise that nothing can settle", logs: run.logs };
  } else {
    return;
  }
  run.finished = true;
  clearTimeout(run.timer);
  current = undefined;
  try {
    run.vm.dispose();
  } catch {
    // A VM that trapped may not free cleanly; its memory goes with the instance.
  }
  post({ type: "done", runId: run.runId, outcome });
  prepareSpare(run.limits.heapBytes);
}

function settledOutcome(run: Run, settled: string): WorkerDone {
  const body = settled.slice(1);
  if (settled.startsWith("E")) {
    const { name, message, at } = JSON.parse(body) as { name: string; message: string; at?: [number, number] };
    if (name === "InternalError" && message === "out of memory")
      return { ok: false, kind: "memory", message: "the program used more memory than its limit", logs: run.logs };
    const position = at === undefined ? {} : codePosition(at[0], at[1]);
    return { ok: false, kind: "uncaught", message: clip(name === "" ? message : `${name}: ${message}`), ...position, logs: run.logs };
  }
  const depth = jsonDepth(body);
  if (depth > MAX_RESULT_DEPTH) {
    return {
      ok: false,
      kind: "output_limit",
      message: `the result nests ${depth} levels deep, more than ${MAX_RESULT_DEPTH}`,
      result: JSON.stringify(`…[a value nested ${depth} levels deep left out]`),
      logs: run.logs,
    };
  }
  const budget = run.limits.maxOutputBytes - run.logBytes;
  if (Buffer.byteLength(body) <= budget) return { ok: true, result: body, logs: run.logs };
  const result = truncateJson(JSON.parse(body), budget);
  return {
    ok: false,
    kind: "output_limit",
    message: `the result and logs are ${count(Buffer.byteLength(body) + run.logBytes, "byte")}, more than ${run.limits.maxOutputBytes}`,
    result: JSON.stringify(result),
    logs: run.logs,
  };
}

prepareSpare(heapBytes);

port.on("message", (message: ToWorker) => {
  if (message.type === "run") void start(message);
  else if (message.type === "answer") answer(message);
  else if (current !== undefined && current.runId === message.runId) settle(current);
});
