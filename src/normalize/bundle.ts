import type { Bundle, BundleServer } from "../bundle/types.js";
import { nestedBeyond } from "../json-schema/traverse.js";
import type { Profile } from "../providers/facts.js";
import { type NormalizeNote, normalizeSchemaWithNotes } from "./normalize.js";

/** What normalizing did to one tool: its notes (pointers from the tool, e.g. `/inputSchema/…`), or why it failed. */
export interface ToolOutcome {
  server: string;
  tool: string;
  notes: NormalizeNote[];
  /** Set when the tool could not be normalized; it is then left as exported. */
  failure?: string;
}

/**
 * The passes recurse, and overflow the stack near a thousand levels; a schema deeper than this is
 * left as exported, with the pointer where it goes too deep. No provider accepts nesting near it.
 */
const MAX_NORMALIZE_DEPTH = 256;

/**
 * Every input and output schema of `bundle` rewritten for `profile`, tool by tool: a tool that
 * cannot be normalized is left as exported and reported, and the others go on.
 */
export function normalizeBundle(bundle: Bundle, profile: Profile): { servers: BundleServer[]; outcomes: ToolOutcome[] } {
  const outcomes: ToolOutcome[] = [];
  const servers = bundle.servers.map((server) => ({
    ...server,
    tools: server.tools.map((tool) => {
      const outcome: ToolOutcome = { server: server.id, tool: tool.name, notes: [] };
      outcomes.push(outcome);
      try {
        const next = { ...tool };
        for (const key of ["inputSchema", "outputSchema"] as const) {
          if (tool[key] === undefined) continue;
          const deep = nestedBeyond(tool[key], MAX_NORMALIZE_DEPTH);
          if (deep !== undefined) throw new Error(`/${key}${deep}: nested deeper than ${MAX_NORMALIZE_DEPTH} levels`);
          const result = normalizeSchemaWithNotes(tool[key], { profile });
          next[key] = result.schema;
          for (const note of result.notes) outcome.notes.push({ ...note, pointer: `/${key}${note.pointer === "/" ? "" : note.pointer}` });
        }
        return next;
      } catch (error) {
        // A schema the passes cannot handle costs one tool, not the bundle.
        outcome.notes = [];
        outcome.failure = error instanceof Error ? error.message : String(error);
        return tool;
      }
    }),
  }));
  return { servers, outcomes };
}

/** One line for a tool's notes: how many of each kind, and the first one in full. */
export function summarizeNotes(notes: readonly NormalizeNote[]): string {
  const kinds = new Map<string, number>();
  for (const note of notes) kinds.set(note.kind, (kinds.get(note.kind) ?? 0) + 1);
  const first = notes[0];
  if (first === undefined) return "no notes";
  const counts = [...kinds].map(([kind, n]) => `${kind} ${n}`).join(", ");
  return `${notes.length} note${notes.length === 1 ? "" : "s"} (${counts}); first at ${first.pointer}: ${first.message}`;
}
