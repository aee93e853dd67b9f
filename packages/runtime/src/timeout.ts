/**
 * @pmcp-codegen/runtime/internal/timeout: the one rule for timeouts, shared with the CLI's flags;
 * its own subpath because it imports nothing.
 */

/** The longest delay a timer can wait (2^31 − 1 ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** What is wrong with `value` as a timeout in milliseconds, or undefined when nothing is; for one-line messages. */
export function timeoutProblem(value: unknown): string | undefined {
  if (typeof value !== "number" || !(value > 0)) return "must be a positive number of milliseconds";
  if (value > MAX_TIMEOUT_MS) return `must be at most ${MAX_TIMEOUT_MS} ms (about 24 days)`;
  return undefined;
}
