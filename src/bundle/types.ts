import { ServerIdSchema } from "@pmcp-codegen/runtime/internal";
import { z } from "zod";

const JsonObject = z.record(z.string(), z.unknown());

/** A JSON Schema is an object or, in 2019-09 and later, a boolean. */
const JsonSchemaValue = z.union([JsonObject, z.boolean()]);

/** One tool exactly as listed; keys we do not model (`execution`, `icons`, vendor keys) pass through. */
export const ToolSchema = z.looseObject({
  name: z.string().min(1).describe("The tool's wire name, used verbatim in tools/call."),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: JsonSchemaValue.optional(),
  outputSchema: JsonSchemaValue.optional(),
  annotations: JsonObject.optional().describe("Every key as sent, including pmcp:outputTypeName and the legacy pmcp:outputSchema."),
  _meta: JsonObject.optional(),
});
export type Tool = z.infer<typeof ToolSchema>;

/** Where a server was reached; credentials (headers, env values, URL secrets) are never recorded. */
export const EndpointSchema = z.discriminatedUnion("transport", [
  z.object({ transport: z.literal("stdio"), command: z.string(), args: z.array(z.string()) }),
  z.object({ transport: z.enum(["streamable-http", "sse"]), url: z.string() }),
]);
export type Endpoint = z.infer<typeof EndpointSchema>;

/** Defined by the runtime, which checks the ids of `mcpServers` entries against it too. */
export { ServerIdSchema };

/** A difference between what a tool declares and what it returned, from its observations. */
export const DriftSchema = z.object({
  path: z.string().describe("JSON pointer into the result, `*` for any array item."),
  message: z.string(),
  count: z.number().int().positive().describe("Observations with this problem."),
});
export type Drift = z.infer<typeof DriftSchema>;

/**
 * What `pmcp schema infer` learned about one tool from its observed results. Kept beside
 * the tools, never inside them: the tool objects stay exactly as the server sent them.
 */
export const InferredToolSchema = z.object({
  tool: z.string().describe("The tool's name, as in `tools`."),
  schema: JsonSchemaValue.describe("JSON Schema inferred from the observed results."),
  observations: z.number().int().nonnegative().describe("Results the schema was inferred from."),
  seen: z.number().int().nonnegative().describe("Results observed in all; the log keeps a uniform sample of them."),
  firstSeen: z.string(),
  lastSeen: z.string(),
  redacted: z.boolean().describe("The observations kept structure only."),
  consistency: z.number().min(0).max(1).describe("Share of observations in which every field had its usual type."),
  quality: z.enum(["high", "medium", "low", "none"]),
  fields: z.array(
    z.object({
      path: z.string(),
      presence: z.number().min(0).max(1).optional(),
      types: z.record(z.string(), z.number().int().nonnegative()),
    }),
  ),
  drift: z.array(DriftSchema).optional().describe("Observed results that break the declared schema (hybrid tools)."),
  capped: z
    .object({
      depth: z.number().int().positive().optional(),
      size: z.number().int().positive().optional(),
      count: z.number().int().positive().optional(),
    })
    .optional()
    .describe(
      "Samples made to fit inference's bounds: `depth`, how many nested past 64 levels (arrays and objects there kept empty); `size`, how many over 64 KiB of JSON (cut down to fit, each value keeping its type); `count`, how many were left out past 1,000 (an even spread of 1,000 was used).",
    ),
  content: z
    .record(z.string(), z.number().int().nonnegative())
    .optional()
    .describe(
      "Observed results that held no JSON (prose, images, links), by content block type: how many of them held a block of that type. They are left out of the schema.",
    ),
});
export type InferredTool = z.infer<typeof InferredToolSchema>;

export const ServerSchema = z.looseObject({
  id: ServerIdSchema,
  serverInfo: z.looseObject({ name: z.string(), version: z.string() }).optional(),
  protocolVersion: z.string().optional(),
  instructions: z.string().optional(),
  endpoint: EndpointSchema.optional(),
  tools: z.array(ToolSchema),
  inferred: z.array(InferredToolSchema).optional().describe("Per tool, what pmcp schema infer learned from observed results."),
});
export type BundleServer = z.infer<typeof ServerSchema>;

/**
 * The schema bundle: every tool of every exported server, recorded as the server sent it.
 * This zod schema is the single source of truth; `schemas/bundle.schema.json` is generated
 * from it (`npm run schema:bundle`) and a test keeps the two in step.
 */
export const BundleSchema = z.object({
  version: z.string().regex(/^1\.\d+$/, "this reader understands bundle version 1.x"),
  servers: z.array(ServerSchema),
});
export type Bundle = z.infer<typeof BundleSchema>;

export { BUNDLE_VERSION } from "./defaults.js";
