import { z } from "zod";
import { TOOL_TAG_KEYS } from "../bundle/tool-tags.js";

const JsonObject = z.record(z.string(), z.unknown());

/** MCP requires both schema roots to be objects (protocol 2025-06-18 and 2025-11-25). */
const ObjectRootSchema = z.looseObject({
  type: z.literal("object"),
  properties: z.record(z.string(), JsonObject).optional(),
  required: z.array(z.string()).optional(),
});

const Name = z.string().min(1);

/** The tool tags; other `_meta` keys pass through to tools/list untouched. */
const ToolMetaSchema = z.looseObject({
  [TOOL_TAG_KEYS.category]: Name.optional(),
  [TOOL_TAG_KEYS.phase]: Name.optional(),
  [TOOL_TAG_KEYS.popularity]: z.number().optional(),
  [TOOL_TAG_KEYS.rateLimit]: Name.optional(),
});

export const ManifestToolSchema = z.object({
  name: Name.describe("The tool's wire name: the function name in snake_case."),
  function: Name.describe("The module export that implements the tool, or the method of `class`."),
  class: z
    .object({
      name: Name.describe("The exported class."),
      factory: Name.optional().describe(
        "An exported function returning the instance; without it the class is constructed with no arguments.",
      ),
    })
    .optional()
    .describe("Set when the tool is a method: the module's one instance of the class runs it."),
  parameters: z
    // JSON objects carry "__proto__" as a key, but reading it back yields the prototype.
    .array(Name.refine((name) => name !== "__proto__", "__proto__ cannot be an argument's name"))
    .optional()
    .describe("Positional parameters: the function gets these arguments in this order. Without it, the arguments object."),
  description: z.string().optional(),
  inputSchema: ObjectRootSchema,
  outputSchema: ObjectRootSchema.optional(),
  annotations: JsonObject.optional().describe("MCP hints and pmcp:outputTypeName."),
  _meta: ToolMetaSchema.optional().describe("pmcp/category, pmcp/phase, pmcp/popularity and pmcp/rateLimit."),
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
  tools: z.array(ManifestToolSchema).superRefine((tools, context) => {
    const seen = new Set<string>();
    for (const [index, tool] of tools.entries()) {
      if (seen.has(tool.name)) context.addIssue({ code: "custom", path: [index, "name"], message: `tool "${tool.name}" is listed twice` });
      seen.add(tool.name);
    }
  }),
});
export type ToolManifest = z.infer<typeof ToolManifestSchema>;
