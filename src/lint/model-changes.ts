import type { Bundle } from "../bundle/types.js";
import { count } from "../count.js";
import { normalizeBundle, type ToolOutcome } from "../normalize/bundle.js";
import type { NormalizeNote } from "../normalize/normalize.js";
import type { NoteKind } from "../normalize/passes.js";
import type { Profile } from "../providers/facts.js";

/** What a tool's model sees changed under one profile: the notes of normalizing that change what the model reads or sends. */
export interface ModelChanges {
  server: string;
  tool: string;
  profile: Profile;
  /** The tool's name for the model. */
  name: string;
  /** Declared in strict mode. */
  strict: boolean;
  changes: NormalizeNote[];
}

/** Pointers shown in a line before the rest are left to `--json`. */
const POINTERS_SHOWN = 3;

const pointers = (notes: readonly NormalizeNote[]) =>
  `(${notes
    .slice(0, POINTERS_SHOWN)
    .map((note) => note.pointer)
    .join(", ")}${notes.length > POINTERS_SHOWN ? ", …" : ""})`;

/**
 * The kinds of note that change what the model sees, each with how a line says it: its name,
 * strict mode, and the encodings `restoreArguments` undoes. Other notes change only what the
 * provider checks or a description, which lint's findings already cover.
 */
const PHRASES: Partial<Record<NoteKind, (notes: readonly NormalizeNote[], changes: ModelChanges) => string>> = {
  renamed: (_, changes) => `renamed ${JSON.stringify(changes.name)}`,
  "non-strict": (notes) => notes.map((note) => note.message).join("; "),
  "root-wrapped": (notes) => notes.map((note) => note.message).join("; "),
  "json-text": (notes) => `${count(notes.length, "value")} as JSON text ${pointers(notes)}`,
  "enum-to-strings": (notes) => `${count(notes.length, "enum")} as strings ${pointers(notes)}`,
  "optional-to-nullable": (notes) => `optional properties as required+nullable in ${count(notes.length, "object")} ${pointers(notes)}`,
};

/** The model is given a tool's name and input schema, never its output schema. */
const seenByModel = (note: NormalizeNote) => Object.hasOwn(PHRASES, note.kind) && !note.pointer.startsWith("/outputSchema");

/**
 * Per tool of `bundle`, in order, what its model sees changed under each of `profiles` that
 * changes anything, from `normalizeBundle`'s outcomes (so the strict budgets apply over the whole bundle).
 */
export function modelChanges(bundle: Bundle, profiles: readonly Profile[]): ModelChanges[][] {
  const outcomes = profiles.map((profile) => normalizeBundle(bundle, profile).outcomes);
  const tools = bundle.servers.reduce((sum, server) => sum + server.tools.length, 0);
  return Array.from({ length: tools }, (_, index) =>
    outcomes.flatMap((byTool, at) => {
      const { server, tool, name, strict, notes } = byTool[index] as ToolOutcome;
      const changes = notes.filter(seenByModel).map(({ kind, pointer, message }) => ({ kind, pointer, message }));
      return changes.length === 0 ? [] : [{ server, tool, profile: profiles[at] as Profile, name, strict, changes }];
    }),
  );
}

/** The changes in one line: `renamed "github__create_issue"; 2 values as JSON text (/inputSchema/properties/body, …)`. */
export function describeModelChanges(changes: ModelChanges): string {
  const byKind = new Map<NoteKind, NormalizeNote[]>();
  for (const note of changes.changes) byKind.set(note.kind, [...(byKind.get(note.kind) ?? []), note]);
  return [...byKind].map(([kind, notes]) => (PHRASES[kind] as NonNullable<(typeof PHRASES)[NoteKind]>)(notes, changes)).join("; ");
}
