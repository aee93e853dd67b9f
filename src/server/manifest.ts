import { z } from "zod";
import { parseJsonText } from "../files/read-json.js";
import { ToolDefinitionError } from "./errors.js";

const JsonObject = z.record(z.string(), z.unknown());

/** MCP requires both schema roots to be objects (protocol 2025-06-18 and 2025-11-25). */
const ObjectRootSchema = z.looseObject({
  type: z.literal("object"),
  properties: z.record(z.string(), JsonObject).optional(),
  required: z.array(z.string()).optional(),
});

export const ManifestToolSchema = z.object({
  name: z.string().min(1).describe("The tool's wire name: the function name in snake_case."),
  function: z.string().min(1).describe("The module export that implements the tool."),
  description: z.string().optional(),
  inputSchema: ObjectRootSchema,
  outputSchema: ObjectRootSchema.optional(),
  annotations: JsonObject.optional().describe("MCP hints and pmcp:outputTypeName."),
});
export type ManifestTool = z.infer<typeof ManifestToolSchema>;

/**
 * The tool manifest: the MCP tool definitions that `toolsFromSource` derives from a module's
 * exported async functions, and that `registerFunctions` serves. Like the bundle, this zod
 * schema is the single source of truth for the type.
 */
export const ToolManifestSchema = z.object({
  version: z.literal(1),
  source: z.string().describe("The module the manifest was read from, relative to where it was read."),
  tools: z
    .array(ManifestToolSchema)
    .refine((tools) => new Set(tools.map((tool) => tool.name)).size === tools.length, "tool names must be unique"),
});
export type ToolManifest = z.infer<typeof ToolManifestSchema>;

/** Parses a manifest file's text; `path` is only used in messages. */
export function parseToolManifest(path: string, text: string): ToolManifest {
  return parseJsonText(text, path, ToolManifestSchema, {
    fail: (message, cause) => new ToolDefinitionError("INVALID_MANIFEST", message, { cause }),
  });
}
