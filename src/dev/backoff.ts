/** The first wait before reconnecting to a server that went away, and the longest. */
export const FIRST_RETRY_MS = 250;
export const MAX_RETRY_MS = 10_000;

/**
 * Milliseconds to wait before reconnect attempt `attempt` (0 for the first): doubling from
 * FIRST_RETRY_MS up to MAX_RETRY_MS, less up to a quarter at random, so that servers which
 * went away together are not all retried in the same instant.
 */
export function retryDelay(attempt: number, random: () => number = Math.random): number {
  const full = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** Math.min(attempt, 16));
  return Math.round(full * (1 - random() / 4));
}
