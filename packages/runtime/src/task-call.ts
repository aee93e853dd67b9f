import { type Client, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { z } from "zod";
import { CallResult } from "./call-result.js";

/** What `tools/call` answers when the call was made a task (protocol 2025-11-25's task augmentation). */
const CreatedTask = z.looseObject({ task: z.looseObject({ taskId: z.string(), pollInterval: z.number().optional() }) });

const TaskStatus = z.looseObject({
  taskId: z.string(),
  status: z.string(),
  statusMessage: z.string().optional(),
  pollInterval: z.number().optional(),
});

/** Polls no faster than this, however short an interval the server asks for, and no slower than the longest. */
const POLL_MS = { least: 50, default: 1000, most: 5000 };

/** The task ended without a result to read: cancelled, or waiting for input no composition client can give. */
export class TaskEnded extends Error {
  override readonly name = "TaskEnded";
}

/**
 * Runs a tool that requires task augmentation (`execution.taskSupport: "required"`): creates the
 * task, polls `tasks/get` at the server's interval until it ends, then reads `tasks/result`, all
 * within `timeoutMs` of the start. A timeout or an abort cancels the task (`tasks/cancel`, best
 * effort) before the SDK's error is thrown, so the server stops the work nobody waits for.
 */
export async function callAsTask(
  client: Client,
  params: { name: string; arguments: object; _meta?: Record<string, unknown> },
  options: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<CallResult> {
  const deadline = performance.now() + options.timeoutMs;
  /** What is left of the call's time; past the deadline, the SDK's own timeout error, as a plain call's. */
  const remaining = () => {
    const left = Math.ceil(deadline - performance.now());
    if (left <= 0) throw new SdkError(SdkErrorCode.RequestTimeout, "Request timed out", { timeout: options.timeoutMs });
    return left;
  };
  const requestOptions = () => ({ timeout: remaining(), ...(options.signal === undefined ? {} : { signal: options.signal }) });
  const created = await client.request(
    { method: "tools/call", params: { ...params, task: { ttl: options.timeoutMs } } },
    CreatedTask,
    requestOptions(),
  );
  const { taskId } = created.task;
  try {
    let interval = created.task.pollInterval;
    for (;;) {
      await sleep(Math.min(clamp(interval), remaining()), options.signal);
      const task = await client.request({ method: "tasks/get", params: { taskId } }, TaskStatus, requestOptions());
      interval = task.pollInterval ?? interval;
      if (task.status === "completed" || task.status === "failed")
        return await client.request({ method: "tasks/result", params: { taskId } }, CallResult, requestOptions());
      if (task.status === "cancelled") throw new TaskEnded(`the task was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ""}`);
      if (task.status === "input_required")
        throw new TaskEnded(
          `the task asks for input, which a composition client cannot give${task.statusMessage ? `: ${task.statusMessage}` : ""}`,
        );
    }
  } catch (error) {
    // Not awaited for long: the server may be the reason the call failed.
    void client.request({ method: "tasks/cancel", params: { taskId } }, z.unknown(), { timeout: 5000 }).catch(() => {});
    throw error;
  }
}

function clamp(interval: number | undefined): number {
  if (interval === undefined || !Number.isFinite(interval)) return POLL_MS.default;
  return Math.min(POLL_MS.most, Math.max(POLL_MS.least, interval));
}

/** Waits `ms`; an abort ends the wait early (the next request then rejects with the SDK's abort error). */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    }
  });
}
