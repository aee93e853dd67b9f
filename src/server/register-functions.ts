import { type CallToolResult, type McpServer, ProtocolError, ProtocolErrorCode, type Tool } from "@modelcontextprotocol/server";
import { errorMessage } from "@pmcp-codegen/runtime/internal";
import { toolTagsOf } from "../bundle/tool-tags.js";
import { describeErrors } from "../json-schema/error-text.js";
import { itemSchema } from "../json-schema/keywords.js";
import { isObject } from "../json-schema/pointer.js";
import { followRefs } from "../json-schema/refs.js";
import { compileSchema, type ValidateFunction } from "../json-schema/validator.js";
import { ToolDefinitionError } from "./errors.js";
import type { ManifestTool, ToolManifest } from "./manifest.js";
import { type RateLimitCheck, type RateLimits, RETRY_AFTER_MS_META, rateLimitCheck } from "./rate-limits.js";
import { checkToolManifest } from "./read-manifest.js";
import { checkOptions, type RegisterFunctionsOptions } from "./register-options.js";
import { ENABLE_TOOLS, growingListing } from "./tool-listing.js";
import { toolTarget } from "./tool-target.js";
import { tracedToolCall } from "./traced-call.js";

/** One served tool: what tools/list publishes, the function, and the checks around a call. */
interface Entry {
  definition: Tool;
  run: (args: Record<string, unknown>) => unknown;
  validateInput: ValidateFunction;
  validateOutput: ValidateFunction | undefined;
  /** The tool's rate-limit bucket, checked after its arguments. */
  rateLimit: RateLimitCheck | undefined;
}

/**
 * Serves a manifest's tools from a module's functions on an McpServer. The low-level
 * tools/list and tools/call handlers are used because `registerTool` only takes zod schemas
 * and republishes them as draft-07: this way clients see the manifest's JSON Schemas
 * byte for byte. These handlers serve every tool of the server: an McpServer constructed with
 * `capabilities.tools` has installed its own (empty) ones, which are replaced, and a server with
 * tools from `registerTool` is refused. Registration must happen before `connect`.
 *
 * `options.rateLimits` gives each bucket a tool's `pmcp/rateLimit` names its budget: a call past
 * it gets an `isError` result with the wait in `_meta["pmcp/retryAfterMs"]`, and its function
 * does not run. A bucket's calls are counted on its options object, so registrations given the
 * same `rateLimits` (the servers of several HTTP sessions) share the budget.
 *
 * `options.listing` other than `"all"` lists the `basic`-phase or `top` N most popular tools
 * first, and `enable_tools`, which lists the others (all, or one category's) and sends
 * `notifications/tools/list_changed`. The listing is this registration's, so one session's (a
 * server made per request starts each from the first listing). `enable_tools` carries
 * `_meta["pmcp/unlisted"]`, the number of tools not listed yet, by which `pmcp schema export`
 * tells that its bundle holds the first listing only.
 * Tools not listed yet can still be called by name: the listing shapes what a model sees,
 * not what is allowed.
 *
 * Throws a ToolDefinitionError when an export is missing, a schema does not compile, an
 * option is invalid, a tool names a bucket the options lack, a tool is named `enable_tools`
 * with a listing other than `"all"`, or the server has tools from `registerTool`.
 */
export function registerFunctions(
  server: McpServer,
  module: Record<string, unknown>,
  manifest: ToolManifest,
  options: RegisterFunctionsOptions = {},
): void {
  checkOptions(options);
  refuseRegisteredTools(server, manifest.source);
  const { listing = "all", rateLimits } = options;
  // JavaScript callers are not type-checked: a path, or a manifest edited by hand, fails here with its reason.
  checkToolManifest(manifest, "registerFunctions");
  const entries = new Map<string, Entry>();
  for (const tool of manifest.tools) {
    if (listing !== "all" && tool.name === ENABLE_TOOLS) {
      throw new ToolDefinitionError(
        "DUPLICATE_TOOL",
        `${manifest.source}: tool "${ENABLE_TOOLS}" has the name of the tool that listing ${JSON.stringify(listing)} adds; rename it or list all tools`,
      );
    }
    entries.set(tool.name, entryOf(tool, module, manifest.source, rateLimits));
  }
  const tools = [...entries.values()].map((entry) => entry.definition);
  const growing = listing === "all" ? undefined : growingListing(tools, listing);
  if (growing !== undefined) {
    entries.set(ENABLE_TOOLS, {
      definition: growing.enableTools,
      run: ({ category }) => {
        const { added, text } = growing.add(category as string | undefined);
        if (added.length > 0) server.sendToolListChanged();
        return text;
      },
      validateInput: compileSchema(growing.enableTools.inputSchema),
      validateOutput: undefined,
      rateLimit: undefined,
    });
  }

  // SDK v2's McpServer installs its tool handlers at construction when `capabilities.tools` is
  // given (as a server that sends list_changed declares it), so they may be there already.
  server.server.removeRequestHandler("tools/list");
  server.server.removeRequestHandler("tools/call");
  server.server.registerCapabilities({ tools: growing === undefined ? {} : { listChanged: true } });
  server.server.setRequestHandler("tools/list", () => ({ tools: growing?.tools() ?? tools }));
  server.server.setRequestHandler("tools/call", (request, extra) => {
    const entry = entries.get(request.params.name);
    // The SDK's own message for an unknown tool, but as a protocol error, as the MCP spec asks.
    // No span: no tool ran, as with McpServer's own tools.
    if (entry === undefined) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
    return tracedToolCall(server.server, entry.definition.name, extra, () => call(entry, request.params.arguments ?? {}));
  });
}

/**
 * The handlers registerFunctions installs serve its manifest's tools only: tools given to
 * `registerTool` before would silently stop being served. The SDK keeps them in a field of its
 * own, read here for that one check. A `registerTool` after it fails by itself (the SDK finds the
 * tool handlers taken).
 */
function refuseRegisteredTools(server: McpServer, source: string): void {
  const registered = (server as unknown as { _registeredTools?: Record<string, unknown> })._registeredTools;
  const names = Object.keys(registered ?? {});
  if (names.length === 0) return;
  const shown = names.slice(0, 3).map((name) => JSON.stringify(name));
  const more = names.length > shown.length ? ` and ${names.length - shown.length} more` : "";
  throw new ToolDefinitionError(
    "DUPLICATE_TOOL",
    `${source}: registerFunctions serves every tool of its server, and this server has tools from registerTool (${shown.join(", ")}${more}), which it would no longer serve: serve them from the manifest too, or from a server of their own`,
  );
}

function entryOf(tool: ManifestTool, module: Record<string, unknown>, source: string, rateLimits: RateLimits | undefined): Entry {
  const run = toolTarget(tool, module, source);
  const { rateLimit: bucket } = toolTagsOf(tool._meta);
  const compile = (schema: Record<string, unknown>, which: string): ValidateFunction => {
    try {
      return compileSchema(schema);
    } catch (error) {
      throw new ToolDefinitionError(
        "INVALID_SCHEMA",
        `${source}: tool "${tool.name}": its ${which} does not compile: ${errorMessage(error)}`,
        { cause: error },
      );
    }
  };
  const { function: _function, class: _class, parameters: _parameters, ...definition } = tool;
  return {
    // The manifest's keys exactly; annotation keys such as pmcp:outputTypeName are not in the SDK's type.
    definition: definition as Tool,
    run,
    validateInput: compile(tool.inputSchema, "inputSchema"),
    validateOutput: tool.outputSchema === undefined ? undefined : compile(tool.outputSchema, "outputSchema"),
    rateLimit: bucket === undefined ? undefined : rateLimitCheck(source, tool.name, bucket, rateLimits),
  };
}

/**
 * Bad arguments, a spent budget and failures inside the function are tool errors, so the model
 * can read and correct them. Arguments are checked first: a call refused for them spends nothing.
 */
async function call(entry: Entry, args: Record<string, unknown>): Promise<CallToolResult> {
  const { name } = entry.definition;
  if (!entry.validateInput(args)) return toolError(`Invalid arguments for tool ${name}: ${describeErrors(entry.validateInput.errors)}`);
  const refusal = entry.rateLimit?.();
  if (refusal !== undefined) return { ...toolError(refusal.message), _meta: { [RETRY_AFTER_MS_META]: refusal.retryAfterMs } };
  let json: unknown;
  try {
    json = toJson(await entry.run(reviveDates(entry.definition.inputSchema, args) as Record<string, unknown>));
  } catch (error) {
    return toolError(errorMessage(error));
  }
  if (entry.validateOutput === undefined) {
    return json === undefined
      ? { content: [] }
      : { content: [{ type: "text", text: typeof json === "string" ? json : JSON.stringify(json) }] };
  }
  // MCP: "Servers MUST provide structured results that conform to this schema."
  if (!entry.validateOutput(json)) {
    return toolError(`Tool ${name} returned a result that does not match its outputSchema: ${describeErrors(entry.validateOutput.errors)}`);
  }
  return { content: [{ type: "text", text: JSON.stringify(json) }], structuredContent: json };
}

/** The wire form of a result: Dates become ISO strings, as their `format: "date-time"` schema says. */
function toJson(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}

function toolError(text: string): CallToolResult {
  return { content: [{ type: "text", text }], isError: true };
}

/**
 * Date parameters travel as ISO strings; `toolsFromSource` writes `format: "date-time"` for
 * `Date` only, so those strings become Dates again and functions get the types they declare.
 * `anyOf` branches are not entered: which branch a value matched is not known here.
 */
function reviveDates(root: unknown, value: unknown, at: unknown = root): unknown {
  const schema = followRefs(root, at);
  if (!isObject(schema)) return value;
  if (schema.format === "date-time" && typeof value === "string") return new Date(value);
  if (Array.isArray(value)) return value.map((item, index) => reviveDates(root, item, itemSchema(schema, index)));
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [
        key,
        reviveDates(root, item, Object.hasOwn(properties, key) ? properties[key] : schema.additionalProperties),
      ]),
    );
  }
  return value;
}
