/**
 * `make`'s result, made on its first use and shared by every later one: one export or run whose output
 * several cases assert on, each case naming what it needs instead of relying on another case to run first.
 */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => {
    made ??= make();
    return made;
  };
}
