/** JSON pointers (RFC 6901) over any JSON value. */

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** `pointer` extended by the (unescaped) keys of `path`. */
export function joinPointer(pointer: string, path: readonly string[]): string {
  return path.reduce((at, key) => `${at}/${escapePointer(key)}`, pointer);
}

/** The value at a JSON pointer (`""` is the root), or undefined when a step is missing. */
export function resolvePointer(root: unknown, pointer: string): unknown {
  let node = root;
  for (const raw of pointer.split("/").slice(1)) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~");
    if (Array.isArray(node)) node = node[Number(key)];
    else if (isObject(node) && Object.hasOwn(node, key)) node = node[key];
    else return undefined;
    if (node === undefined) return undefined;
  }
  return node;
}
