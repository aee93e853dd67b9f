import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { QUALITIES, SOURCES } from "../bundle/quality.js";
import type { Bundle } from "../bundle/types.js";
import { PROFILES, type Profile } from "../providers/facts.js";
import { typedTool } from "../server/index.js";
import { version } from "../version.js";
import { inspectTool } from "./describe-tool.js";
import { listTools } from "./list-tools.js";
import { type ModelTool, modelTools } from "./model-view.js";

// Counts are plain numbers: `.int()` would add ±2^53 bounds to a schema every agent session pays for.
const ListToolsOutput = z.object({
  tools: z.array(
    z.object({
      name: z.string().describe("server/tool, the name inspect_tool takes"),
      summary: z.string().describe("First sentence of the description"),
      modelName: z.string().optional().describe("The tool's name for the model (present when the server shows a provider's view)"),
    }),
  ),
  total: z.number().describe("Tools in the bundle before the query and server filters"),
});

const InspectToolOutput = z.object({
  name: z.string().describe("server/tool"),
  description: z.string(),
  inputSchema: z
    .unknown()
    .meta({ type: ["object", "boolean"] })
    .describe("JSON Schema of the arguments, as the server declares it, or as the model sees it when profile is present"),
  outputSchema: z
    .unknown()
    .meta({ type: ["object", "boolean", "null"] })
    .describe(
      "JSON Schema of the structured result as the server declares it (normalized like inputSchema), or null when it declares none",
    ),
  note: z.string().optional().describe("Present when outputSchema is null"),
  task: z.string().optional().describe("Present when the server requires the tool to run as a task"),
  inferredOutputSchema: z
    .object({
      schema: z.unknown().meta({ type: ["object", "boolean"] }),
      observations: z.number(),
      quality: z.enum(QUALITIES),
      drift: z.array(z.object({ path: z.string(), message: z.string(), count: z.number() })).optional(),
    })
    .optional()
    .describe("Learned from observed results, not declared by the server: a guess, graded by quality"),
  observedContent: z
    .record(z.string(), z.number())
    .optional()
    .describe("Observed results that held no JSON, by content block type (text, image, …): how many held each"),
  resultType: z.string().describe("TypeScript type of the result, as pmcp generate emits it"),
  source: z.enum(SOURCES).describe("Where the result's schema comes from (an inferred one of quality none is not used for resultType)"),
  quality: z.enum(QUALITIES),
  program: z
    .object({
      signature: z.string().describe("How a program calls the tool, e.g. inventory.getStock(args: GetStockArgs): Promise<StockLevel>"),
      types: z.string().describe("The TypeScript types the signature uses"),
    })
    .optional()
    .describe("Present on servers that run programs (execute_program)"),
  modelName: z.string().optional().describe("The tool's name for the model"),
  profile: z
    .enum(PROFILES)
    .optional()
    .describe("The provider profile the schemas are normalized for (a strict one's fallback past its limits)"),
  strict: z.boolean().optional().describe("Whether the tool is declared in the provider's strict mode"),
  modelNotes: z
    .array(z.object({ pointer: z.string(), kind: z.string(), message: z.string() }))
    .optional()
    .describe("What normalizing changed that the model sees differently (JSON text, values as strings, null for omitted), by JSON pointer"),
  modelFailure: z.string().optional().describe("Why the schemas could not be normalized: they are shown as declared"),
});

/** How a program calls a tool, for servers that run programs; undefined for none. */
export type ProgramSignatureOf = (toolName: string) => { signature: string; types: string } | undefined;

/** How list_tools and inspect_tool show the tools. */
export interface InspectToolsOptions {
  /** The server ids list_tools' `server` takes, named in its description; undefined while they are not known (servers still being listed). */
  serverIds: readonly string[] | undefined;
  /** How a program calls a tool, on servers that run programs. */
  programOf?: ProgramSignatureOf;
  /** Show schemas and names as this profile's model is given them. */
  profile?: Profile | undefined;
}

/** An MCP server for agents: `list_tools` to find a tool cheaply, `inspect_tool` to learn one in full. */
export function createInspectServer(bundle: Bundle, profile?: Profile): McpServer {
  const server = new McpServer(
    { name: "pmcp-inspect", version },
    {
      instructions:
        "Call list_tools to find a tool by name or words, then inspect_tool for the schemas and result type of the one you will use.",
    },
  );
  registerInspectTools(server, () => bundle, { serverIds: bundle.servers.map((entry) => entry.id), profile });
  declareFixedToolList(server);
  return server;
}

/**
 * The SDK declares `tools.listChanged: true` as soon as a tool is registered; these servers never
 * change their tools list (learning changes types, not tools) and so never send the notification.
 * Call after the last tool is registered.
 */
export function declareFixedToolList(server: McpServer): void {
  server.server.registerCapabilities({ tools: { listChanged: false } });
}

/**
 * Adds list_tools and inspect_tool to `server`. The bundle is read per call, so a server
 * whose types are learned while it runs answers with the current ones, and one whose servers
 * are still starting answers once they are listed.
 */
export function registerInspectTools(
  server: McpServer,
  current: () => Bundle | Promise<Bundle>,
  { serverIds, programOf, profile }: InspectToolsOptions,
): void {
  // Server ids are restricted to [A-Za-z0-9._-], so naming them in a description carries no instructions.
  const serverChoice =
    serverIds === undefined ? "a server id, the part of a tool's name before the slash" : `one of ${serverIds.join(", ") || "(none)"}`;

  typedTool(
    server,
    {
      name: "list_tools",
      title: "List tools",
      description:
        "Lists the available tools as server/tool names with the first sentence of each description, without schemas. " +
        "Call this first to find a tool; narrow it with query (words that must all appear in the name or description) or server. " +
        "Then call inspect_tool for the tool you will use." +
        (profile === undefined ? "" : ` Each tool's modelName is its name for a ${profile} model.`),
      input: {
        query: z.string().optional().describe("Words that must all appear (any case) in the tool's name or description"),
        server: z.string().optional().describe(`Only this server's tools: ${serverChoice}`),
      },
      output: ListToolsOutput,
      outputTypeName: "ToolListing",
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, server: serverId }) => {
      const bundle = await current();
      const tools = listTools(bundle, {
        ...(query === undefined ? {} : { query }),
        ...(serverId === undefined ? {} : { server: serverId }),
      });
      const names = profile === undefined ? undefined : modelTools(bundle, profile);
      return {
        tools:
          names === undefined ? tools : tools.map((tool) => ({ ...tool, modelName: (names.get(tool.name) as ModelTool).outcome.name })),
        total: bundle.servers.reduce((sum, entry) => sum + entry.tools.length, 0),
      };
    },
  );

  typedTool(
    server,
    {
      name: "inspect_tool",
      title: "Inspect a tool",
      description:
        "Returns a tool's description, input schema and output schema, and the TypeScript type of its result. " +
        "outputSchema is null, with a note, when the server defines none: then inspect the result before relying on its shape. " +
        "Call this before writing code that calls the tool or reads its result." +
        // A profile is one of a fixed list: naming it carries no instructions.
        (profile === undefined
          ? ""
          : ` The schemas are the ones a ${profile} model is given, with modelName (the tool's name for it) and modelNotes (what normalizing changed).`),
      input: { tool_name: z.string().describe("The tool as server/tool, as list_tools names it (e.g. inventory/get_stock)") },
      output: InspectToolOutput,
      outputTypeName: "ToolInspection",
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ tool_name }) => {
      const outcome = inspectTool(await current(), tool_name, profile);
      // typedTool turns the throw into an isError result whose text is this message alone.
      if (!outcome.found) throw new Error(outcome.message);
      const program = programOf?.(tool_name);
      return program === undefined ? outcome.inspection : { ...outcome.inspection, program };
    },
  );
}
