/**
 * How much the corpus and property tests sample. By default a part, the same part each run, so that
 * `npm test` takes minutes on a laptop; with PMCP_FULL_TESTS=1 (`.ci/run` sets it) every entry and
 * every sample, as before.
 */
export const FULL_TESTS = "PMCP_FULL_TESTS";

export const full = process.env[FULL_TESTS] === "1";

/** `whole` in a full run, else `part`: a count of samples or runs. */
export function runs(whole: number, part: number): number {
  return full ? whole : part;
}

/** Every item in a full run, else every `stride`-th from the first: the same items each run. */
export function everyNth<T>(items: readonly T[], stride: number): T[] {
  return full ? [...items] : items.filter((_, index) => index % stride === 0);
}
