import type {
  AudioContent,
  CallToolResult,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
} from "@modelcontextprotocol/client";
import type { z } from "zod";
import { type CallResult, contentOf, resultJson, textsOf } from "./call-result.js";
import { InvalidResponseError, OutputValidationError } from "./errors.js";
import type { JsonValue } from "./json-value.js";
import { safeParseDeep } from "./schema-helpers.js";

/**
 * A tool's result as it came: what a tool without an output schema returns (most tools
 * answer in text, images or links, not JSON). Reading it never fails because the text is
 * not JSON; only `json()` and the key accessors need JSON, and say so with an
 * InvalidResponseError.
 */
export class ToolResult {
  /** The result as the server sent it, `_meta` included; blocks of a type newer than the SDK are kept as they are. */
  readonly raw: CallToolResult;
  readonly serverId: string;
  readonly toolName: string;
  #json: { value: JsonValue } | undefined;

  constructor(serverId: string, toolName: string, raw: CallResult) {
    this.serverId = serverId;
    this.toolName = toolName;
    this.raw = raw as CallToolResult;
  }

  /** The content blocks as sent: text, image, audio, resource_link and embedded resource. */
  get content(): ContentBlock[] {
    return contentOf(this.raw) as ContentBlock[];
  }

  /** All text blocks joined with "\n"; "" when there are none. */
  get text(): string {
    return textsOf(this.raw).join("\n");
  }

  get images(): ImageContent[] {
    return this.content.filter((block): block is ImageContent => block.type === "image");
  }

  get audio(): AudioContent[] {
    return this.content.filter((block): block is AudioContent => block.type === "audio");
  }

  get resourceLinks(): ResourceLink[] {
    return this.content.filter((block): block is ResourceLink => block.type === "resource_link");
  }

  /** Embedded resources (`type: "resource"`). */
  get resources(): EmbeddedResource[] {
    return this.content.filter((block): block is EmbeddedResource => block.type === "resource");
  }

  /** Any JSON value since protocol 2026-07-28, so read here rather than through `raw`'s SDK type. */
  get structuredContent(): JsonValue | undefined {
    return (this.raw as CallResult).structuredContent as JsonValue | undefined;
  }

  /**
   * The result's JSON: `structuredContent` if any, else its first text block parsed;
   * InvalidResponseError when there is none. With a zod schema, the JSON parsed by it
   * (OutputValidationError when it does not match).
   */
  json(): JsonValue;
  json<T>(schema: z.ZodType<T>): T;
  json<T>(schema?: z.ZodType<T>): JsonValue | T {
    this.#json ??= { value: resultJson(this.serverId, this.toolName, this.raw) as JsonValue };
    const value = this.#json.value;
    if (schema === undefined) return value;
    const parsed = safeParseDeep(schema, value);
    if (!parsed.success) throw new OutputValidationError(this.serverId, this.toolName, parsed.error.issues, value);
    return parsed.data;
  }

  /** A key of the JSON object; undefined when absent. */
  get(key: string): JsonValue | undefined {
    const object = this.#object();
    return Object.hasOwn(object, key) ? object[key] : undefined;
  }

  has(key: string): boolean {
    return Object.hasOwn(this.#object(), key);
  }

  /** A key of the JSON object; InvalidResponseError naming the key when it is absent. */
  require(key: string): JsonValue {
    const object = this.#object();
    if (!Object.hasOwn(object, key))
      throw new InvalidResponseError(`the result has no key ${JSON.stringify(key)}`, this.serverId, this.toolName, this.raw);
    return object[key] as JsonValue;
  }

  #object(): { [key: string]: JsonValue } {
    const value = this.json();
    if (typeof value !== "object" || value === null || Array.isArray(value))
      throw new InvalidResponseError("the result's JSON is not an object", this.serverId, this.toolName, this.raw);
    return value;
  }
}

/** The result of a tool with an output schema, asked for with `{ withResult: true }`: its parsed value beside the content. */
export class ParsedResult<T> extends ToolResult {
  readonly value: T;

  constructor(serverId: string, toolName: string, raw: CallResult, value: T) {
    super(serverId, toolName, raw);
    this.value = value;
  }
}
