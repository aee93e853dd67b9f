/**
 * "1 server", "3 servers": every message that counts something says it through this, in any
 * layer (so it lives in no layer). Nouns whose plural is not "+s" are not counted yet.
 */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
