import { count } from "../count.js";
import { ToolDefinitionError } from "./errors.js";

/** A bucket's budget: at most `calls` calls started within any `perMs` milliseconds. */
export interface RateLimit {
  calls: number;
  perMs: number;
}

/** Buckets by name, as tools name them in `_meta["pmcp/rateLimit"]`. */
export type RateLimits = Readonly<Record<string, RateLimit>>;

/** The `_meta` key of a refused call's result: the milliseconds to wait, so programs need not parse the text. */
export const RETRY_AFTER_MS_META = "pmcp/retryAfterMs";

/** Why a call was not run, and when one would be. */
export interface RateLimitRefusal {
  message: string;
  retryAfterMs: number;
}

/** Checks a call against its bucket: `undefined` means it may run (and it now counts), else the refusal. */
export type RateLimitCheck = () => RateLimitRefusal | undefined;

/**
 * The start times of the calls each bucket let through, oldest first. Keyed on the bucket's
 * options object, not on a registration: a bucket protects an upstream API, so the servers of
 * all sessions given the same object draw on one budget.
 */
const startTimes = new WeakMap<RateLimit, number[]>();

/**
 * The check for the calls of `tool`, which draws on `bucket` (a sliding window: a refused call
 * spends nothing). Throws an UNKNOWN_BUCKET ToolDefinitionError when `rateLimits` lacks it.
 */
export function rateLimitCheck(source: string, tool: string, bucket: string, rateLimits: RateLimits | undefined): RateLimitCheck {
  const limit = rateLimits !== undefined && Object.hasOwn(rateLimits, bucket) ? rateLimits[bucket] : undefined;
  if (limit === undefined) {
    throw new ToolDefinitionError(
      "UNKNOWN_BUCKET",
      `${source}: tool "${tool}" draws on the rate-limit bucket ${JSON.stringify(bucket)}, which the options' rateLimits do not define`,
    );
  }
  const { calls, perMs } = limit;
  const started = startTimes.get(limit) ?? [];
  startTimes.set(limit, started);
  return () => {
    // Monotonic: a clock set back must not lengthen a wait.
    const now = performance.now();
    while (started.length > 0 && started[0]! <= now - perMs) started.shift();
    if (started.length < calls) {
      started.push(now);
      return undefined;
    }
    const retryAfterMs = Math.max(1, Math.ceil(started[0]! + perMs - now));
    return {
      message: `Rate limited: bucket ${JSON.stringify(bucket)} allows ${count(calls, "call")} per ${perMs} ms; retry in ${retryAfterMs} ms`,
      retryAfterMs,
    };
  };
}
