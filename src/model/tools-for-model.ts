import { AbortError, CompositionClient, CompositionError, ToolCallError, type ToolResult } from "@pmcp-codegen/runtime";
import { errorMessage } from "@pmcp-codegen/runtime/internal";
import { checkTool } from "../bundle/check-tool.js";
import { requiresTask } from "../bundle/task-support.js";
import { BUNDLE_VERSION, type Bundle, type Tool } from "../bundle/types.js";
import { PmcpError } from "../errors.js";
import { UnusableSchemaError, validatorFor } from "../json-schema/validator.js";
import { normalizeBundle, refuseNormalized } from "../normalize/bundle.js";
import type { NormalizeNote } from "../normalize/normalize.js";
import { RestoreError, restoreArguments } from "../normalize/restore.js";
import { PROFILES, type Profile } from "../providers/facts.js";
import {
  type AnthropicTool,
  type ChatFunctionTool,
  type GeminiFunctionDeclaration,
  type GeminiJsonFunctionDeclaration,
  type GeminiTools,
  type ModelDeclaration,
  type OpenAiApi,
  providerTools,
  type ResponsesFunctionTool,
} from "./declarations.js";
import {
  type AnthropicToolResult,
  type CallOutcome,
  type ChatToolMessage,
  type GeminiFunctionResponsePart,
  providerResult,
  type ResponsesFunctionCallOutput,
} from "./results.js";

/** The request's `tools` and one function result, in the shapes of the profile's provider (and OpenAI API). */
export type ProviderShapes<P extends Profile, A extends OpenAiApi> = P extends "openai" | "openai-strict"
  ? A extends "chat"
    ? { tools: ChatFunctionTool[]; result: ChatToolMessage }
    : { tools: ResponsesFunctionTool[]; result: ResponsesFunctionCallOutput }
  : P extends "portable"
    ? { tools: ChatFunctionTool[]; result: ChatToolMessage }
    : P extends "gemini"
      ? { tools: GeminiTools<GeminiFunctionDeclaration>; result: GeminiFunctionResponsePart }
      : P extends "gemini-json"
        ? { tools: GeminiTools<GeminiJsonFunctionDeclaration>; result: GeminiFunctionResponsePart }
        : { tools: AnthropicTool[]; result: AnthropicToolResult };

export interface ToolsForModelOptions<P extends Profile, A extends OpenAiApi> {
  /** The provider's rules the declarations follow, and the shape of the request and the results. */
  profile: P;
  /** OpenAI profiles: the Responses API's shapes (default) or Chat Completions'. */
  api?: A;
  /** Calls the tools when the source is a bundle; a live client is its own. Without one, `call` answers with an error. */
  client?: CompositionClient;
  /** Only these servers' tools (default: all). */
  servers?: readonly string[];
}

/** One tool as handed to the model: its name there, and what normalizing changed (`notes`). */
export interface ModelTool {
  /** The name the model calls it by: valid for the provider, unique across servers. */
  name: string;
  server: string;
  tool: string;
  /** The profile its schema was normalized for: a strict profile's fallback when the tool was past its limits. */
  profile: Profile;
  strict: boolean;
  notes: NormalizeNote[];
}

/** What the model's call became: the tool and the arguments its own schema accepts. */
export interface RestoredCall {
  server: string;
  tool: string;
  arguments: Record<string, unknown>;
}

export interface ModelCallOptions {
  /** The call's id as the model sent it (OpenAI `call_id`/`tool_call_id`, Anthropic `tool_use_id`, Gemini `id`). */
  id?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** MCP tools handed to a model: the declarations to send, and the way back from its calls. */
export interface ModelToolset<P extends Profile, A extends OpenAiApi> {
  readonly profile: P;
  /** The request's `tools` field, in the provider's own shape. */
  readonly tools: ProviderShapes<P, A>["tools"];
  /** Per declared tool, in order: its model name, where it goes, and what the model sees changed. */
  readonly declared: readonly ModelTool[];
  /**
   * Tools left out: their schema could not be normalized (nested too deep), nothing of their input
   * schema can be checked, or the listing sent a malformed tool.
   */
  readonly skipped: readonly Skipped[];
  /** The tool a model name stands for, and the arguments restored; throws a RestoreError the model can read. */
  restore(name: string, modelArgs: unknown): RestoredCall;
  /**
   * Maps the name back, restores and validates the arguments, calls the tool, and returns the
   * result in the provider's function-result shape. What the model can correct or should know (an
   * unknown name, arguments that do not restore, an `isError` result, a failed call) comes back as
   * an error result it sees as such; only an abort (the caller's own signal) throws.
   */
  call(name: string, modelArgs: unknown, options?: ModelCallOptions): Promise<ProviderShapes<P, A>["result"]>;
}

/** A tool left out of the declarations, and why. */
export interface Skipped {
  server: string;
  tool: string;
  reason: string;
}

/** A model name that no declared tool has; the message lists some that exist. */
export class UnknownToolError extends PmcpError<"UNKNOWN_TOOL"> {
  override readonly name = "UnknownToolError";

  constructor(message: string) {
    super("UNKNOWN_TOOL", message);
  }
}

/** How many names an unknown-tool message lists, so that a model sees some without a thousand-tool list. */
const LISTED_NAMES = 20;

/**
 * MCP tools for a model under `options.profile`: from a bundle (with `options.client` to call them)
 * or from a live CompositionClient, whose servers are listed now.
 */
export async function toolsForModel<P extends Profile, A extends OpenAiApi = "responses">(
  source: Bundle | CompositionClient,
  options: ToolsForModelOptions<P, A>,
): Promise<ModelToolset<P, A>> {
  const { profile } = options;
  // Mistakes of the program, not of the model: they throw.
  if (!(PROFILES as readonly string[]).includes(profile))
    throw new PmcpError(
      "INVALID_ARGUMENT",
      `toolsForModel: unknown profile ${JSON.stringify(profile)} (choose from ${PROFILES.join(", ")})`,
    );
  const live = source instanceof CompositionClient;
  const ids = live ? source.serverIds : source.servers.map((server) => server.id);
  const unknown = (options.servers ?? []).filter((id) => !ids.includes(id));
  if (unknown.length > 0)
    throw new PmcpError(
      "INVALID_ARGUMENT",
      `toolsForModel: no server ${unknown.map((id) => JSON.stringify(id)).join(", ")} (have: ${ids.join(", ")})`,
    );
  // Restoring against schemas rewritten for a model would send its encodings (a `null` for "not given") to the servers.
  if (!live) refuseNormalized(source, "toolsForModel", "pass the bundle as exported, toolsForModel normalizes it");
  const { bundle: listed, skipped } = live ? await bundleOf(source, options.servers) : { bundle: source, skipped: [] };
  const client = live ? source : options.client;
  const wanted = options.servers === undefined ? undefined : new Set(options.servers);
  const bundle = { ...listed, servers: listed.servers.filter((server) => wanted?.has(server.id) ?? true) };
  const { servers, outcomes } = normalizeBundle(bundle, profile);
  const originals = bundle.servers.flatMap((server) => server.tools);
  const normalized = servers.flatMap((server) => server.tools);
  const declared: (ModelTool & { original: Tool; declaration: ModelDeclaration; protocol: string | undefined })[] = [];
  outcomes.forEach((outcome, index) => {
    const original = originals[index] as Tool;
    const tool = normalized[index] as Tool;
    if (outcome.failure !== undefined) {
      skipped.push({ server: outcome.server, tool: outcome.tool, reason: outcome.failure });
      return;
    }
    // Arguments are never sent unchecked: a tool none of whose input schema can be checked is not offered.
    try {
      validatorFor(original.inputSchema ?? {});
    } catch (error) {
      if (!(error instanceof UnusableSchemaError)) throw error;
      skipped.push({ server: outcome.server, tool: outcome.tool, reason: `inputSchema: ${error.message}` });
      return;
    }
    // A copy: the normalized schema is remembered for restoring, and the caller may change what it sends.
    const parameters = structuredClone(tool.inputSchema ?? { type: "object", properties: {} }) as Record<string, unknown>;
    declared.push({
      name: outcome.name,
      server: outcome.server,
      tool: outcome.tool,
      profile: outcome.profile,
      strict: outcome.strict,
      notes: outcome.notes,
      original,
      declaration: { name: outcome.name, description: tool.description ?? tool.title ?? "", parameters, strict: outcome.strict },
      protocol: bundle.servers.find((server) => server.id === outcome.server)?.protocolVersion,
    });
  });
  const byName = new Map(declared.map((tool) => [tool.name, tool]));
  const api = options.api === undefined ? {} : { api: options.api };

  const restore = (name: string, sent: unknown): RestoredCall => {
    const tool = byName.get(name);
    if (tool === undefined) {
      const names = [...byName.keys()];
      const some = names.slice(0, LISTED_NAMES).join(", ");
      throw new UnknownToolError(
        `there is no tool "${name}"; the tools are ${some}${names.length > LISTED_NAMES ? `, and ${names.length - LISTED_NAMES} more` : ""}`,
      );
    }
    const modelArgs = typeof sent === "string" ? argumentsText(sent) : (sent ?? {});
    const restored = restoreArguments(tool.original.inputSchema ?? {}, modelArgs, { profile: tool.profile });
    if (typeof restored !== "object" || restored === null || Array.isArray(restored))
      throw new RestoreError("INVALID_ARGUMENTS", "/", "/: the tool's arguments must be an object");
    return { server: tool.server, tool: tool.tool, arguments: restored as Record<string, unknown> };
  };

  const answer = (outcome: CallOutcome, name: string, id: string | undefined) =>
    providerResult(profile, outcome, { name, ...(id === undefined ? {} : { id }) }, api) as ProviderShapes<P, A>["result"];

  return {
    profile,
    tools: providerTools(
      profile,
      declared.map((tool) => tool.declaration),
      api,
    ) as ProviderShapes<P, A>["tools"],
    declared: declared.map(({ name, server, tool, profile: applied, strict, notes }) => ({
      name,
      server,
      tool,
      profile: applied,
      strict,
      notes,
    })),
    skipped,
    restore,
    async call(name, modelArgs, callOptions = {}) {
      let call: RestoredCall;
      try {
        call = restore(name, modelArgs);
      } catch (error) {
        if (error instanceof RestoreError || error instanceof UnknownToolError)
          return answer({ error: error.message }, name, callOptions.id);
        throw error;
      }
      if (client === undefined)
        throw new PmcpError("INVALID_ARGUMENT", "toolsForModel: these tools came from a bundle without { client }: nothing can call them");
      const tool = byName.get(name)!;
      const annotations = tool.original.annotations ?? {};
      let result: ToolResult;
      try {
        result = await client.callToolForResult(
          {
            server: call.server,
            tool: call.tool,
            args: call.arguments,
            retryable: annotations.readOnlyHint === true || annotations.idempotentHint === true,
            ...(requiresTask(tool.original) ? { task: true } : {}),
            ...(tool.protocol === undefined ? {} : { protocol: tool.protocol }),
          },
          {
            ...(callOptions.signal === undefined ? {} : { signal: callOptions.signal }),
            ...(callOptions.timeoutMs === undefined ? {} : { timeoutMs: callOptions.timeoutMs }),
          },
        );
      } catch (error) {
        if (error instanceof AbortError || !(error instanceof CompositionError)) throw error;
        // An isError result carries the tool's own words; any other failure says what went wrong.
        return answer({ error: error instanceof ToolCallError ? error.text : error.message }, name, callOptions.id);
      }
      return answer(result, name, callOptions.id);
    },
  };
}

/**
 * The servers' tools as a bundle, listed now. A server that cannot be listed, and a tool object
 * without MCP's shape, are left out and named in `skipped` with the reason: the others still go to the model.
 */
async function bundleOf(client: CompositionClient, only: readonly string[] | undefined): Promise<{ bundle: Bundle; skipped: Skipped[] }> {
  const skipped: Skipped[] = [];
  const ids = client.serverIds.filter((id) => only === undefined || only.includes(id));
  const listings = await Promise.allSettled(ids.map((id) => client.listTools(id)));
  const servers = ids.flatMap((id, at) => {
    const listing = listings[at] as PromiseSettledResult<unknown[]>;
    if (listing.status === "rejected") {
      skipped.push({ server: id, tool: "*", reason: `not listed: ${errorMessage(listing.reason)}` });
      return [];
    }
    const tools = listing.value.flatMap((tool, index) => {
      const checked = checkTool(tool, index);
      if ("tool" in checked) return [checked.tool];
      skipped.push({ server: id, tool: checked.name, reason: `${checked.label}: ${checked.problem}` });
      return [];
    });
    return [{ id, tools }];
  });
  return { bundle: { version: BUNDLE_VERSION, servers }, skipped };
}

/** OpenAI sends a call's arguments as JSON text; a model-facing error says so when it is not JSON. */
function argumentsText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new RestoreError("INVALID_JSON_TEXT", "/", "/: the arguments are not JSON: send them as a JSON object");
  }
}
