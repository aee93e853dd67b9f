/** JSON pointers (RFC 6901) over any JSON value. */

/** Whether `value` is a JSON object: an object that is neither null nor an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function escapePointer(key: string): string {
  // Nearly every key needs no escape, and a pointer is built for every subschema walked.
  if (!key.includes("~") && !key.includes("/")) return key;
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** The key one escaped segment of a pointer names. */
export function unescapePointer(segment: string): string {
  // Nearly every segment has no escape; restoring arguments unescapes every error's pointer.
  if (!segment.includes("~")) return segment;
  return segment.replace(/~1/g, "/").replace(/~0/g, "~");
}

/** `pointer` extended by the (unescaped) keys of `path`. */
export function joinPointer(pointer: string, path: readonly string[]): string {
  return path.reduce((at, key) => `${at}/${escapePointer(key)}`, pointer);
}

/** The unescaped keys of a pointer, from the root: none for `""`. */
export function pointerKeys(pointer: string): string[] {
  return pointer.split("/").slice(1).map(unescapePointer);
}

/** The value at a JSON pointer (`""` is the root), or undefined when a step is missing. */
export function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const key of pointerKeys(pointer)) {
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}
