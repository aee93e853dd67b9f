/** Local JSON Schema references: JSON pointers and anchors within one schema resource. */

/** Keywords whose values are data, not schemas: nothing inside them is a `$ref` or an anchor. */
export const DATA_KEYWORDS = new Set(["const", "enum", "default", "examples", "example"]);

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
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

/** The subschema declaring `$anchor` (or `$dynamicAnchor`, or a fragment `$id`) with this name. */
export function findAnchor(node: unknown, anchor: string): Record<string, unknown> | undefined {
  if (Array.isArray(node)) {
    for (const item of node) {
      const found = findAnchor(item, anchor);
      if (found) return found;
    }
    return undefined;
  }
  if (!isObject(node)) return undefined;
  if (node.$anchor === anchor || node.$dynamicAnchor === anchor || node.$id === `#${anchor}`) return node;
  for (const [key, value] of Object.entries(node)) {
    if (DATA_KEYWORDS.has(key)) continue;
    const found = findAnchor(value, anchor);
    if (found) return found;
  }
  return undefined;
}
