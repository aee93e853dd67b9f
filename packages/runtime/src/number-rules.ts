/**
 * @pmcp-codegen/runtime/internal/numbers: the rules for numbers a user gives (timeouts, counts,
 * sizes), shared with the CLI's flags so that every message has one shape; its own subpath
 * because it imports nothing.
 */

/** The longest delay a timer can wait (2^31 − 1 ms, about 24.8 days): a longer one fires at once. */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/** The largest message a stdio server may write unless told otherwise (10 MiB). */
export const DEFAULT_MAX_MESSAGE_BYTES = 10 * 2 ** 20;

/** Samples an observation log keeps per tool unless told otherwise. */
export const DEFAULT_MAX_SAMPLES = 200;

/** What is wrong with `value` as a timeout in milliseconds, or undefined when nothing is; for one-line messages. */
export function timeoutProblem(value: unknown): string | undefined {
  if (typeof value !== "number" || !(value > 0)) return "must be a positive number of milliseconds";
  if (value > MAX_TIMEOUT_MS) return `must be at most ${MAX_TIMEOUT_MS} ms (about 24 days)`;
  return undefined;
}

export interface WholeNumberRange {
  /** Default 1. */
  min?: number;
  /** Default none (up to Number.MAX_SAFE_INTEGER). */
  max?: number;
  /** What the number counts, for the message: "bytes" gives "a whole number of bytes ≥ 1". */
  unit?: string;
}

/**
 * What is wrong with `value` as a count, size or port, or undefined when nothing is:
 * "must be a whole number ≥ 1, got 0", "must be a whole number of milliseconds from 0 to 60000, got 1.5".
 */
export function wholeNumberProblem(value: unknown, range: WholeNumberRange = {}): string | undefined {
  const { min = 1, max, unit } = range;
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= min && (max === undefined || value <= max)) return undefined;
  const bounds = max === undefined ? `≥ ${min}` : `from ${min} to ${max}`;
  // An agent's argument can be anything, and long: a number as written, anything else as its JSON, cut short.
  const json = typeof value === "number" ? String(value) : (JSON.stringify(value) ?? String(value));
  const shown = json.length <= 40 ? json : `${json.slice(0, 40)}…`;
  return `must be a whole number${unit === undefined ? "" : ` of ${unit}`} ${bounds}, got ${shown}`;
}
