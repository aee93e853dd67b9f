import type { CallToolResult, McpServer, RegisteredTool, ServerContext, ToolAnnotations } from "@modelcontextprotocol/server";
import { formatIssues } from "@pmcp-codegen/runtime/internal";
import { z } from "zod";
import { ToolDefinitionError } from "./errors.js";
import { tracedToolCall } from "./traced-call.js";

/** A zod object schema, or the raw shape `z.object` would take. */
export type ObjectSchema = z.ZodObject | z.ZodRawShape;

/** The zod object schema an `ObjectSchema` stands for. */
export type AsObject<S extends ObjectSchema> = S extends z.ZodObject ? S : S extends z.ZodRawShape ? z.ZodObject<S> : never;

/** What a tool may return: any zod schema (a non-object root is published as it is from protocol 2026-07-28 on), or a raw object shape. */
export type OutputSchema = z.ZodType | z.ZodRawShape;

/** The zod schema an `OutputSchema` stands for. */
export type AsSchema<S extends OutputSchema> = S extends z.ZodType ? S : S extends z.ZodRawShape ? z.ZodObject<S> : never;

export interface TypedToolOptions<Input extends ObjectSchema, Output extends OutputSchema> {
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

/** The SDK's handler context (`ctx.mcpReq.signal`, `ctx.http?.req`, …). */
export type TypedToolExtra = ServerContext;

/**
 * Gets the parsed input; returns the value the output schema accepts. TypeScript types a
 * tuple literal in that value as an array here, so write the return type out when it has one.
 */
export type TypedToolHandler<Input extends ObjectSchema, Output extends OutputSchema> = (
  input: z.output<AsObject<Input>>,
  extra: TypedToolExtra,
) => z.input<AsSchema<Output>> | Promise<z.input<AsSchema<Output>>>;

/**
 * Registers a tool whose input is a zod object schema and whose output is any zod schema,
 * publishing the standard `outputSchema` plus PMCP's `pmcp:outputTypeName` annotation, and
 * answering with `structuredContent` and the same JSON as a text block. A non-object output
 * reaches 2025-era clients wrapped as `{ result }` (the SDK's codec), modern ones as it is.
 */
export function typedTool<Input extends ObjectSchema, Output extends OutputSchema>(
  server: McpServer,
  options: TypedToolOptions<Input, Output>,
  handler: TypedToolHandler<Input, Output>,
): RegisteredTool {
  const input = asObject(options.input);
  const output = asSchema(options.output);
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
    ...(options.legacyAnnotations ? { "pmcp:outputSchema": z.toJSONSchema(output, { target: "draft-2020-12", io: "output" }) } : {}),
  };
  return server.registerTool(
    options.name,
    {
      ...(options.title === undefined ? {} : { title: options.title }),
      description: options.description,
      inputSchema: checkedInHandler(input),
      outputSchema: output,
      annotations,
    },
    (args, extra): Promise<CallToolResult> =>
      tracedToolCall(server.server, options.name, extra, async () => {
        // Checked here, inside the span, rather than by the SDK, which answers bad input before any
        // handler runs (no span); the answer is the SDK's own.
        const input_ = await input.safeParseAsync(args);
        if (!input_.success) {
          const text = `Input validation error: ${formatIssues(`Invalid arguments for tool ${options.name}`, input_.error.issues)}`;
          return { content: [{ type: "text", text }], isError: true };
        }
        // A throw here reaches the SDK, which answers with `isError` and the message.
        const value = await handler(input_.data as z.output<AsObject<Input>>, extra);
        // Checked here rather than by the SDK, whose own check answers with a protocol error.
        const parsed = await output.safeParseAsync(value);
        if (!parsed.success) {
          const text = formatIssues(`output of tool "${options.name}" does not match its schema`, parsed.error.issues);
          return { content: [{ type: "text", text }], isError: true };
        }
        return { content: [{ type: "text", text: JSON.stringify(parsed.data) }], structuredContent: parsed.data };
      }),
  );
}

/**
 * The same schema for the SDK to publish (its JSON Schema form), with a check that lets every value
 * through: the handler checks the arguments itself, inside its span.
 */
function checkedInHandler<S extends z.ZodObject>(schema: S): S {
  const standard = schema["~standard"];
  return { "~standard": { ...standard, validate: (value: unknown) => ({ value }) } } as unknown as S;
}

/** The first part of `schema` with no JSON Schema form (`z.date()`, `z.bigint()`), by its dotted path. */
function unrepresentable(schema: z.ZodType, io: "input" | "output", path = ""): { path: string; message: string } | undefined {
  try {
    z.toJSONSchema(schema, { target: "draft-2020-12", io });
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

function asSchema(schema: OutputSchema): z.ZodType {
  return schema instanceof z.ZodType ? schema : z.object(schema);
}

/** `get_stock` → `GetStockResult`, `listItems` → `ListItemsResult`. */
export function defaultTypeName(toolName: string): string {
  const words = toolName.split(/[^A-Za-z0-9]+/).filter((word) => word !== "");
  return `${words.map((word) => word[0]!.toUpperCase() + word.slice(1)).join("")}Result`;
}
