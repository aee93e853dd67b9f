import { count } from "../count.js";
import { ANNOTATIONS, appendText } from "./annotations.js";
import { isSchema, mapChildren, type Schema } from "./keywords.js";
import { isObject, joinPointer } from "./pointer.js";
import { resolveRef } from "./refs.js";
import { walkSchemas } from "./traverse.js";

/** What an inlining note is about. */
export type InlineNoteKind = "remote-ref" | "dangling-ref" | "recursion-cut" | "size-cut";

export interface InlineContext {
  /** Records a change of meaning (or a reference left as it was) at a JSON pointer. */
  note(pointer: string, message: string, kind: InlineNoteKind): void;
}

export interface InlineOptions {
  /**
   * What becomes of a recursive reference: `keep` refers to its target by name in `$defs`
   * wherever it is used; `unroll` inlines the target `depth` times on one path, then refers to
   * it by name; `cut` inlines it `depth` times on one path, then replaces it by an
   * unconstrained schema whose description says so.
   */
  cycles: "keep" | "unroll" | "cut";
  depth: number;
  /** Subschemas the inlining may add to the input's own; beyond it, references are inlined less deeply. */
  budget?: number;
}

/**
 * Enough for every real schema whose references form a tree; mutually recursive definitions
 * (Microsoft Graph's OneNote types refer to each other by the dozen) grow exponentially with
 * the depth they are inlined to, and would otherwise exhaust memory.
 */
const INLINE_BUDGET = 5_000;
/** Limits on nested references tried in turn while the result exceeds the budget; 0 inlines none. */
const NESTING_LIMITS = [Number.POSITIVE_INFINITY, 8, 6, 4, 3, 2, 1];

/** Thrown inside `inlineRefs` only, to try the next nesting limit. */
class OverBudget extends Error {}

/**
 * Inlines local `$ref`s and drops `$defs`/`definitions`. A recursive reference is kept or cut
 * (see `InlineOptions`); so is every reference nested deeper than the largest limit that keeps
 * the result within the budget: kept (`keep`, `unroll`), the meaning is the same; cut, it is
 * replaced by an unconstrained schema whose description says so. Remote refs are never fetched.
 */
export function inlineRefs(schema: Schema, options: InlineOptions, context: InlineContext): Schema {
  const recursion = new Map<string, boolean>();
  const budget = (options.budget ?? INLINE_BUDGET) + [...walkSchemas(schema)].length;
  for (const nesting of NESTING_LIMITS) {
    const notes: Parameters<InlineContext["note"]>[] = [];
    try {
      const result = inlineWithin(schema, options, { nesting, budget, recursion }, { note: (...note) => notes.push(note) });
      for (const note of notes) context.note(...note);
      return result;
    } catch (error) {
      if (!(error instanceof OverBudget)) throw error;
    }
  }
  // With no reference inlined the result is no larger than the input.
  return inlineWithin(schema, options, { nesting: 0, budget: Number.POSITIVE_INFINITY, recursion }, context);
}

interface Limits {
  /** References nested deeper than this are cut (or kept in `$defs`). */
  nesting: number;
  /** Subschemas the result may hold. */
  budget: number;
  /** Whether a target's references lead back to it, by the target's pointer: shared between attempts. */
  recursion: Map<string, boolean>;
}

function inlineWithin(schema: Schema, options: InlineOptions, limits: Limits, context: InlineContext): Schema {
  /** Kept definitions by name; a Map, so that a definition named "__proto__" is kept like any other. */
  const kept = new Map<string, Schema | boolean>();
  /** Kept definitions' names, by their target's pointer: one target, however it is referred to, has one name. */
  const names = new Map<string, string>();
  let written = 0;
  /** Whether following local refs from the target at `start` leads back to it. */
  const recursive = (start: string, node: unknown): boolean => {
    const known = limits.recursion.get(start);
    if (known !== undefined) return known;
    const seen = new Set<string>();
    const pending = [node];
    let found = false;
    for (let next = pending.pop(); next !== undefined && !found; next = pending.pop()) {
      for (const { node: sub } of walkSchemas(next)) {
        if (typeof sub.$ref !== "string") continue;
        const target = resolveRef(schema, sub.$ref);
        if (target.kind !== "found") continue;
        if (target.pointer === start) found = true;
        if (!seen.has(target.pointer)) {
          seen.add(target.pointer);
          pending.push(target.node);
        }
      }
    }
    limits.recursion.set(start, found);
    return found;
  };
  const keptName = (pointer: string): string => {
    let name = names.get(pointer);
    if (name === undefined) {
      const base = (pointer.split("/").pop() ?? "").replace(/[^A-Za-z0-9_-]/g, "") || "Root";
      name = base;
      for (let n = 2; [...names.values()].includes(name); n++) name = `${base}${n}`;
      names.set(pointer, name);
    }
    return name;
  };
  const expand = (node: Schema, pointer: string, stack: string[]): Schema | boolean => {
    if (typeof node.$ref !== "string") return expandObject(node, pointer, stack);
    const { $ref: ref, ...siblings } = node;
    const target = resolveRef(schema, ref);
    if (target.kind === "remote") {
      context.note(pointer, `$ref ${JSON.stringify(ref)} is not local and was left as it is`, "remote-ref");
      return node;
    }
    if (target.kind !== "found" || !isSchema(target.node)) {
      context.note(
        pointer,
        `${target.kind === "malformed" ? "malformed" : "dangling"} $ref ${JSON.stringify(ref)} replaced by an unconstrained schema`,
        "dangling-ref",
      );
      return siblings;
    }
    const body = target.node;
    const expandBody = (at: string, inner: string[]) => (isObject(body) ? expand(body, at, inner) : body);
    const tooDeep = stack.length >= limits.nesting;
    const repeated = stack.filter((entry) => entry === target.pointer).length >= options.depth;
    const byName =
      options.cycles === "keep" ? tooDeep || recursive(target.pointer, body) : options.cycles === "unroll" && (tooDeep || repeated);
    if (byName) {
      // The reader understands references: the definition stays, referenced by name.
      const name = keptName(target.pointer);
      if (!kept.has(name)) {
        kept.set(name, {});
        // An unrolled definition unrolls from itself, wherever it was first met.
        kept.set(name, expandBody(`/$defs/${name}`, options.cycles === "keep" ? [...stack, target.pointer] : [target.pointer]));
      }
      return { ...expandObject(siblings, pointer, stack), $ref: `#/$defs/${name}` };
    }
    if (tooDeep) {
      context.note(
        pointer,
        `$ref ${JSON.stringify(ref)} not inlined beyond ${count(limits.nesting, "nested reference")}, to stay within ${limits.budget} subschemas`,
        "size-cut",
      );
      return { ...siblings, description: appendText(siblings.description, "(Nested too deep; this level is not described.)") };
    }
    if (repeated) {
      context.note(pointer, `recursion through ${ref} cut after ${options.depth} levels`, "recursion-cut");
      return { ...siblings, description: appendText(siblings.description, "(Recursive structure; deeper levels are not described.)") };
    }
    const inlined = expandBody(pointer, [...stack, target.pointer]);
    return isObject(inlined) ? withSiblings(inlined, expandObject(siblings, pointer, stack)) : inlined;
  };
  const expandObject = (node: Schema, pointer: string, stack: string[]): Schema => {
    if (++written > limits.budget) throw new OverBudget();
    const { $defs: _defs, definitions: _definitions, ...rest } = node;
    return mapChildren(rest, ({ path, schema: child }) => (isObject(child) ? expand(child, joinPointer(pointer, path), stack) : child));
  };
  const result = expand(schema, "", []);
  // A root that is only a reference to a boolean schema, spelled as an object schema.
  if (typeof result === "boolean") return result ? {} : { not: {} };
  if (kept.size === 0) return result;
  const $defs = Object.fromEntries(kept);
  // A root that is only a reference to a recursive definition takes that definition's body.
  const { $ref: rootRef, ...rest } = result;
  const root = typeof rootRef === "string" ? kept.get(rootRef.replace("#/$defs/", "")) : undefined;
  if (isObject(root)) return { ...withSiblings(root, rest), $defs };
  return { ...result, $defs };
}

/**
 * An inlined reference's body with the keywords beside the `$ref`, which apply alongside the body
 * rather than over it: spread into one object, a keyword both give (two `properties`) keeps only
 * one, and one that reads its neighbours (`unevaluatedProperties`, `then`) reads others. So they
 * stay beside an `allOf` holding the body (normalize's mergeAllOf merges it where a provider has
 * no allOf); annotations only replace the body's.
 */
function withSiblings(body: Schema, siblings: Schema): Schema {
  if (Object.keys(siblings).every((key) => ANNOTATIONS.has(key))) return { ...body, ...siblings };
  return { ...siblings, allOf: [body, ...(Array.isArray(siblings.allOf) ? siblings.allOf : [])] };
}
