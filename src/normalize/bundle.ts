import type { Bundle, BundleServer, Tool } from "../bundle/types.js";
import { PmcpError } from "../errors.js";
import { isObject } from "../json-schema/pointer.js";
import { nestedBeyond } from "../json-schema/traverse.js";
import { ANTHROPIC_STRICT_LIMITS, type Profile, STRICT_FALLBACK } from "../providers/facts.js";
import { anthropicStrictCounts, openAiStrictLimits } from "../providers/strict-limits.js";
import { MAX_NORMALIZE_DEPTH, type NormalizeNote, normalizedFor, normalizeSchemaWithNotes } from "./normalize.js";
import { type ModelName, modelToolNames } from "./tool-names.js";

/** What normalizing did to one tool: its notes (pointers from the tool, e.g. `/inputSchema/…`), or why it failed. */
export interface ToolOutcome {
  server: string;
  tool: string;
  /** The tool's name for the model: the provider accepts it, and it is unique across the bundle. */
  name: string;
  /** The profile its schemas were normalized for: a strict profile's fallback when its limits could not hold the tool. */
  profile: Profile;
  /** Declared in strict mode (strict profiles only). */
  strict: boolean;
  notes: NormalizeNote[];
  /** Set when the tool could not be normalized; it is then left as exported. */
  failure?: string;
}

/** Where a normalized bundle records, per tool, what the model sees changed. */
export const NORMALIZED_META = "pmcp/normalized";

/**
 * Throws when a tool of `bundle` was normalized already: normalizing it again would rewrite what
 * the first run wrote (its notes replaced by fewer), and its schemas are no longer the tool's own.
 * `who` begins the message (the command or function), `remedy` ends it.
 */
export function refuseNormalized(bundle: Bundle, who: string, remedy: string): void {
  for (const server of bundle.servers)
    for (const tool of server.tools)
      if (tool._meta !== undefined && Object.hasOwn(tool._meta, NORMALIZED_META))
        throw new PmcpError(
          "INVALID_INPUT",
          `${who}: server "${server.id}" tool "${tool.name}" was normalized already (it has _meta["${NORMALIZED_META}"]): ${remedy}`,
        );
}

/**
 * Every input and output schema of `bundle` rewritten for `profile`, tool by tool, each tool named
 * for the model and marked strict or not within the strict mode's limits and per-request budgets
 * (a tool past them falls back to the same provider without strict mode, with a note naming the
 * limit). A tool that cannot be normalized is left as exported and reported, and the others go on.
 * Each tool records its outcome in `_meta["pmcp/normalized"]`.
 */
export function normalizeBundle(bundle: Bundle, profile: Profile): { servers: BundleServer[]; outcomes: ToolOutcome[] } {
  const refs = bundle.servers.flatMap((server) => server.tools.map((tool) => ({ server: server.id, tool: tool.name })));
  const names = modelToolNames(refs, profile);
  const budget = strictBudget(profile);
  const outcomes: ToolOutcome[] = [];
  const servers = bundle.servers.map((server) => ({
    ...server,
    tools: server.tools.map((tool) => {
      const { name, reason } = names[outcomes.length] as ModelName;
      const renamed: NormalizeNote[] =
        reason === undefined ? [] : [{ pointer: "/name", kind: "renamed", message: `named "${name}" for the model: ${reason}` }];
      const outcome: ToolOutcome = {
        server: server.id,
        tool: tool.name,
        name,
        profile,
        strict: STRICT_FALLBACK[profile] !== undefined,
        notes: renamed,
      };
      outcomes.push(outcome);
      try {
        let normalized = normalizeTool(tool, profile);
        const past = budget?.(normalized.inputSchema);
        if (past !== undefined) {
          outcome.profile = STRICT_FALLBACK[profile] as Profile;
          outcome.strict = false;
          normalized = normalizeTool(tool, outcome.profile);
          normalized.notes.unshift({ pointer: "/inputSchema", kind: "non-strict", message: `declared without strict mode: ${past}` });
        }
        outcome.notes.push(...normalized.notes);
        return { ...normalized.tool, _meta: { ...tool._meta, [NORMALIZED_META]: recorded(outcome) } };
      } catch (error) {
        // A schema the passes cannot handle costs one tool, not the bundle.
        outcome.notes = renamed;
        outcome.failure = error instanceof Error ? error.message : String(error);
        return tool;
      }
    }),
  }));
  return { servers, outcomes };
}

/**
 * The profile a tool of a bundle `normalize` wrote for `profile` was normalized for: the strict
 * profile's fallback when it recorded one (the tool was past the strict limits), else `profile`.
 */
export function appliedProfile(tool: Tool, profile: Profile): Profile {
  const recorded = tool._meta?.[NORMALIZED_META];
  const applied = isObject(recorded) ? recorded.profile : undefined;
  return applied !== undefined && applied === STRICT_FALLBACK[profile] ? (applied as Profile) : profile;
}

/** What the normalized bundle keeps of an outcome beside the tool. */
function recorded({ name, profile, strict, notes }: ToolOutcome) {
  return { name, profile, strict, notes: notes.map(({ pointer, kind, message }) => ({ pointer, kind, message })) };
}

/** A tool's schemas normalized for `profile`, with its notes pointing from the tool. */
function normalizeTool(tool: Tool, profile: Profile): { tool: Tool; inputSchema: unknown; notes: NormalizeNote[] } {
  const next = { ...tool };
  const notes: NormalizeNote[] = [];
  for (const key of ["inputSchema", "outputSchema"] as const) {
    if (tool[key] === undefined) continue;
    const deep = nestedBeyond(tool[key], MAX_NORMALIZE_DEPTH);
    if (deep !== undefined) throw new Error(`/${key}${deep}: nested deeper than ${MAX_NORMALIZE_DEPTH} levels`);
    const schema = tool[key];
    // Remembered per schema object: lint, inspect and toolsForModel normalize the same bundle again.
    const result = isObject(schema) ? normalizedFor(schema, profile) : normalizeSchemaWithNotes(schema, { profile });
    next[key] = result.schema;
    for (const note of result.notes) notes.push({ ...note, pointer: `/${key}${note.pointer === "/" ? "" : note.pointer}` });
  }
  return { tool: next, inputSchema: next.inputSchema, notes };
}

/**
 * For a strict profile, the check that says which limit a tool's normalized input schema would
 * pass: OpenAI strict's per-schema limits, or what is left of Anthropic strict's per-request
 * budgets (20 strict tools, 24 optional and 16 union-typed parameters), spent in bundle order by
 * the tools that fit. Undefined for the other profiles.
 */
function strictBudget(profile: Profile): ((schema: unknown) => string | undefined) | undefined {
  if (profile === "openai-strict")
    return (schema) => {
      const problems = isObject(schema) ? openAiStrictLimits(schema) : [];
      return problems.length === 0 ? undefined : `past OpenAI strict's limits: ${problems.map((problem) => problem.message).join("; ")}`;
    };
  if (profile !== "anthropic-strict") return undefined;
  const spent = { tools: 0, optional: 0, unions: 0 };
  return (schema) => {
    const { optional, unions } = anthropicStrictCounts(schema);
    const limits = ANTHROPIC_STRICT_LIMITS;
    const past =
      spent.tools + 1 > limits.tools
        ? `past Anthropic strict's budget of ${limits.tools} strict tools per request`
        : spent.optional + optional > limits.optional
          ? `past Anthropic strict's budget of ${limits.optional} optional parameters per request (this tool has ${optional}, ${spent.optional} spent)`
          : spent.unions + unions > limits.unions
            ? `past Anthropic strict's budget of ${limits.unions} union-typed parameters per request (this tool has ${unions}, ${spent.unions} spent)`
            : undefined;
    if (past === undefined) {
      spent.tools++;
      spent.optional += optional;
      spent.unions += unions;
    }
    return past;
  };
}

/** `pmcp schema normalize --json`: what changed, in all and per tool (notes counted by kind; the bundle has them whole). */
export function normalizeSummary(profile: Profile, output: string | undefined, outcomes: readonly ToolOutcome[]) {
  const byKind = (notes: readonly NormalizeNote[]) => {
    const kinds: Record<string, number> = {};
    for (const note of notes) kinds[note.kind] = (kinds[note.kind] ?? 0) + 1;
    return kinds;
  };
  return {
    profile,
    output: output ?? null,
    tools: outcomes.length,
    renamed: outcomes.filter((outcome) => outcome.name !== outcome.tool).length,
    nonStrict: outcomes.filter((outcome) => outcome.profile !== profile).length,
    failed: outcomes.filter((outcome) => outcome.failure !== undefined).length,
    notes: byKind(outcomes.flatMap((outcome) => outcome.notes)),
    results: outcomes.map(({ server, tool, name, profile: applied, strict, notes, failure }) => ({
      server,
      tool,
      name,
      profile: applied,
      strict,
      notes: byKind(notes),
      ...(failure === undefined ? {} : { failure }),
    })),
  };
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
