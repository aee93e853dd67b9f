import { childrenOf, mapChildren, type Schema } from "./keywords.js";
import { isObject, joinPointer } from "./pointer.js";

/** One object subschema met by `walkSchemas`. */
export interface Visit {
  node: Schema;
  /** Escaped JSON pointer from the root; `""` is the root. */
  pointer: string;
  /** The keyword holding this subschema in its parent (`properties`, `items`…); undefined at the root. */
  keyword: string | undefined;
  parent: Visit | undefined;
  /** Subschemas between the root and this one: 0 at the root. */
  depth: number;
  /** The schema resource its `#…` references resolve against: the nearest enclosing (or own) `$id`, else the root. */
  resource: Schema;
}

/**
 * Every object subschema of `root`, parent before children, in key order. An explicit
 * stack rather than recursion: schemas nested thousands deep occur in the wild.
 */
export function* walkSchemas(root: unknown): Generator<Visit> {
  if (!isObject(root)) return;
  const stack: Visit[] = [{ node: root, pointer: "", keyword: undefined, parent: undefined, depth: 0, resource: root }];
  for (let visit = stack.pop(); visit !== undefined; visit = stack.pop()) {
    yield visit;
    const children = childrenOf(visit.node);
    for (let index = children.length - 1; index >= 0; index--) {
      const { keyword, path, schema } = children[index]!;
      if (!isObject(schema)) continue;
      // A nested `$id` that is not a fragment starts a new schema resource.
      const resource = typeof schema.$id === "string" && !schema.$id.startsWith("#") ? schema : visit.resource;
      stack.push({ node: schema, pointer: joinPointer(visit.pointer, path), keyword, parent: visit, depth: visit.depth + 1, resource });
    }
  }
}

/** The pointer of the first subschema nested more than `limit` subschemas deep; undefined when none is. */
export function nestedBeyond(root: unknown, limit: number): string | undefined {
  for (const { pointer, depth } of walkSchemas(root)) if (depth > limit) return pointer;
  return undefined;
}

/**
 * Applies `visit` to every object subschema, children before their parent, rebuilding the
 * tree; `schema` itself is not mutated. `pointer` is where `schema` sits.
 */
export function mapSchemas(schema: Schema, visit: (node: Schema, pointer: string) => Schema, pointer = ""): Schema {
  const rebuilt = mapChildren(schema, ({ path, schema: child }) =>
    isObject(child) ? mapSchemas(child, visit, joinPointer(pointer, path)) : child,
  );
  return visit(rebuilt, pointer);
}
