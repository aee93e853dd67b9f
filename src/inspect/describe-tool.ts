import { outputSchemaOf } from "../bundle/output-schema.js";
import { type Quality, type SchemaSource, schemaSourceOf } from "../bundle/quality.js";
import { requiresTask, TASK_NOTE } from "../bundle/task-support.js";
import { type ToolTags, toolTagsOf } from "../bundle/tool-tags.js";
import type { Bundle, BundleServer, Drift, Tool } from "../bundle/types.js";
import type { NormalizeNote } from "../normalize/normalize.js";
import type { Profile } from "../providers/facts.js";
import { type ModelTool, modelTools } from "./model-view.js";
import { resultTypeOf } from "./result-type.js";

export const NO_OUTPUT_SCHEMA_NOTE = "No output schema is defined for this tool. Inspect the result before relying on its shape.";

/**
 * What an agent needs before calling a tool or reading its result. `outputSchema` is only
 * ever what the server declares; a schema learned from observed results is kept apart in
 * `inferredOutputSchema`, so a guess is never mistaken for the server's contract.
 */
export interface ToolInspection {
  name: string;
  description: string;
  inputSchema: unknown;
  outputSchema: unknown;
  note?: string;
  /** Set when the server requires the tool to run as a task (`execution.taskSupport: "required"`). */
  task?: string;
  /** The tool tags the server gave the tool in `_meta` (`pmcp/category`, …), when it gave any. */
  tags?: ToolTags;
  inferredOutputSchema?: { schema: unknown; observations: number; quality: Quality; drift?: Drift[] };
  /** Observed results that held no JSON, by content block type: the tool answers in text, images or links. */
  observedContent?: Record<string, number>;
  /** The generated TypeScript of the result: `type <Name> = …;` and the helper types it uses. */
  resultType: string;
  source: SchemaSource;
  quality: Quality;
  /** With a profile: the tool's name for the model. The schemas above are then the normalized ones. */
  modelName?: string;
  /** With a profile: the one applied, a strict profile's fallback when the tool is past its limits. */
  profile?: Profile;
  strict?: boolean;
  /** With a profile: what normalizing changed that the model sees differently, or left unfixed. */
  modelNotes?: NormalizeNote[];
  /** With a profile: why the schemas could not be normalized; they are then shown as exported. */
  modelFailure?: string;
}

export type InspectOutcome = { found: true; inspection: ToolInspection } | { found: false; message: string };

/** The one line that says a tool is not in the bundle; `name` is echoed as given. */
export function toolNotFound(name: string): string {
  return `[Tool not found] '${name}' is not available`;
}

/**
 * Inspects `server/tool`; the split is at the first `/`, since server ids never contain one. With
 * `profile`, the schemas are those the profile's model is given, with what normalizing did.
 */
export function inspectTool(bundle: Bundle, given: string, profile?: Profile): InspectOutcome {
  // Under a profile an agent may hold the name its model calls the tool by.
  const modelNamed = profile === undefined ? undefined : [...modelTools(bundle, profile)].find(([, view]) => view.outcome.name === given);
  const name = modelNamed?.[0] ?? given;
  const slash = name.indexOf("/");
  const server = slash < 0 ? undefined : bundle.servers.find((candidate) => candidate.id === name.slice(0, slash));
  const index = server === undefined ? -1 : server.tools.findIndex((tool) => tool.name === name.slice(slash + 1));
  const tool = server?.tools[index];
  if (server === undefined || tool === undefined) return { found: false, message: toolNotFound(given) };
  const inspection = inspectionOf(server, tool, index);
  return { found: true, inspection: profile === undefined ? inspection : asModelSees(inspection, bundle, profile) };
}

/** The ids of the servers that have a tool called `toolName`, for names given without a server. */
export function serversWithTool(bundle: Bundle, toolName: string): string[] {
  return bundle.servers.filter((server) => server.tools.some((tool) => tool.name === toolName)).map((server) => server.id);
}

function inspectionOf(server: BundleServer, tool: Tool, index: number): ToolInspection {
  const inferred = server.inferred?.find((block) => block.tool === tool.name);
  const declared = outputSchemaOf(tool);
  const tags = toolTagsOf(tool._meta);
  return {
    name: `${server.id}/${tool.name}`,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema ?? null,
    outputSchema: declared?.schema ?? null,
    ...(declared === undefined ? { note: NO_OUTPUT_SCHEMA_NOTE } : {}),
    ...(requiresTask(tool) ? { task: TASK_NOTE } : {}),
    ...(Object.keys(tags).length === 0 ? {} : { tags }),
    ...(inferred === undefined || inferred.observations === 0
      ? {}
      : {
          inferredOutputSchema: {
            schema: inferred.schema,
            observations: inferred.observations,
            quality: inferred.quality,
            ...(inferred.drift?.length ? { drift: inferred.drift } : {}),
          },
        }),
    ...(inferred?.content === undefined ? {} : { observedContent: inferred.content }),
    resultType: resultTypeOf(server, index),
    ...schemaSourceOf(tool, inferred),
  };
}

/** `inspection` with the schemas `profile`'s model is given in place of the declared ones, and what normalizing did. */
function asModelSees(inspection: ToolInspection, bundle: Bundle, profile: Profile): ToolInspection {
  const { tool, outcome } = modelTools(bundle, profile).get(inspection.name) as ModelTool;
  return {
    ...inspection,
    inputSchema: tool.inputSchema ?? null,
    outputSchema: outputSchemaOf(tool)?.schema ?? null,
    modelName: outcome.name,
    profile: outcome.profile,
    strict: outcome.strict,
    modelNotes: outcome.notes,
    ...(outcome.failure === undefined ? {} : { modelFailure: outcome.failure }),
  };
}
