import type { McpServer, RegisteredTool } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { CallToolResult, ServerNotification, ServerRequest, ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { formatIssues } from "@pmcp-codegen/runtime/internal";
import { z } from "zod";
import { ToolDefinitionError } from "./errors.js";
import { tracedToolCall } from "./traced-call.js";

/** A zod object schema, or the raw shape `z.object` would take. */
export type ObjectSchema = z.ZodObject | z.ZodRawShape;

/** The zod object schema an `ObjectSchema` stands for. */
export type AsObject<S extends ObjectSchema> = S extends z.ZodObject ? S : S extends z.ZodRawShape ? z.ZodObject<S> : never;

export interface TypedToolOptions<Input extends ObjectSchema, Output extends ObjectSchema> {
  name: string;
  title?: string;
  description: string;
  input: Input;
  output: Output;
  /** Name for the generated result type, published as `pmcp:outputTypeName` (default: PascalCase name + `Result`). */
  outputTypeName?: string;
  annotations?: ToolAnnotations;
  /** Also publish the output JSON Schema as `pmcp:outputSchema`, for PMCP clients older than 1.14. */
  legacyAnnotations?: boolean;
}

export type TypedToolExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/**
 * Gets the parsed input; returns the value the output schema accepts. TypeScript types a
 * tuple literal in that value as an array here, so write the return type out when it has one.
 */
export type TypedToolHandler<Input extends ObjectSchema, Output extends ObjectSchema> = (
  input: z.output<AsObject<Input>>,
  extra: TypedToolExtra,
) => z.input<AsObject<Output>> | Promise<z.input<AsObject<Output>>>;

/**
 * Registers a tool whose input and output are zod object schemas, publishing the standard
 * `outputSchema` plus PMCP's `pmcp:outputTypeName` annotation, and answering with
 * `structuredContent` and the same JSON as a text block.
 */
export function typedTool<Input extends ObjectSchema, Output extends ObjectSchema>(
  server: McpServer,
  options: TypedToolOptions<Input, Output>,
  handler: TypedToolHandler<Input, Output>,
): RegisteredTool {
  const input = asObject(options.input);
  const output = asObject(options.output);
  // The SDK converts the schemas only when a client lists tools, and one it cannot convert makes
  // the whole listing fail, hiding every tool of the server: refuse it here instead.
  for (const [side, schema, io] of [
    ["input", input, "input"],
    ["output", output, "output"],
  ] as const) {
    const field = unrepresentable(schema, io);
    if (field !== undefined)
      throw new ToolDefinitionError(
        "INVALID_SCHEMA",
        `tool "${options.name}": its ${side} has no JSON Schema form at ${field.path === "" ? "the root" : field.path} (${field.message})`,
      );
  }
  // Not expressible as a ToolAnnotations literal, but the SDK sends extra keys as given.
  const annotations = {
    ...options.annotations,
    "pmcp:outputTypeName": options.outputTypeName ?? defaultTypeName(options.name),
    // The same options the SDK uses for `outputSchema`, so both copies are identical.
    ...(options.legacyAnnotations ? { "pmcp:outputSchema": z.toJSONSchema(output, { target: "draft-7", io: "output" }) } : {}),
  };
  return server.registerTool(
    options.name,
    {
      ...(options.title === undefined ? {} : { title: options.title }),
      description: options.description,
      inputSchema: input,
      outputSchema: output,
      annotations,
    },
    (args, extra): Promise<CallToolResult> =>
      tracedToolCall(server.server, options.name, extra, async () => {
        // A throw here reaches the SDK, which answers with `isError` and the message.
        // The SDK parsed `args` with `input`; it only lost the static type on the way.
        const value = await handler(args as z.output<AsObject<Input>>, extra);
        // Checked here rather than by the SDK, whose own check answers with a protocol error.
        const parsed = await output.safeParseAsync(value);
        if (!parsed.success) {
          const text = formatIssues(`output of tool "${options.name}" does not match its schema`, parsed.error.issues);
          return { content: [{ type: "text", text }], isError: true };
        }
        const structured = parsed.data as Record<string, unknown>;
        return { content: [{ type: "text", text: JSON.stringify(structured) }], structuredContent: structured };
      }),
  );
}

/** The first part of `schema` with no JSON Schema form (`z.date()`, `z.bigint()`), by its dotted path. */
function unrepresentable(schema: z.ZodType, io: "input" | "output", path = ""): { path: string; message: string } | undefined {
  try {
    z.toJSONSchema(schema, { target: "draft-7", io });
    return undefined;
  } catch (error) {
    if (schema instanceof z.ZodObject) {
      for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
        const found = unrepresentable(field, io, path === "" ? key : `${path}.${key}`);
        if (found !== undefined) return found;
      }
    }
    return { path, message: error instanceof Error ? error.message : String(error) };
  }
}

function asObject(schema: ObjectSchema): z.ZodObject {
  return schema instanceof z.ZodObject ? schema : z.object(schema);
}

/** `get_stock` → `GetStockResult`, `listItems` → `ListItemsResult`. */
export function defaultTypeName(toolName: string): string {
  const words = toolName.split(/[^A-Za-z0-9]+/).filter((word) => word !== "");
  return `${words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("")}Result`;
}
