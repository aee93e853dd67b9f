import type {
  AudioContent,
  CallToolResult,
  ContentBlock,
  EmbeddedResource,
  ImageContent,
  ResourceLink,
} from "@modelcontextprotocol/client";
import type { z } from "zod";
import { blocksOf, type CallResult, contentOf, resultJson, textsOf, wholeBlocks } from "./call-result.js";
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

  /**
   * The content array as sent: blocks of every type, one newer than the SDK included, and whatever
   * else a server put there (null, a number, a block missing a field). The members below hold only
   * the blocks that have what their type requires.
   */
  get content(): JsonValue[] {
    return contentOf(this.raw) as JsonValue[];
  }

  /** The blocks of `content` whose type the SDK knows and that have what that type requires, in order: `content` typed, without the rest. */
  get blocks(): ContentBlock[] {
    return wholeBlocks(this.raw);
  }

  /** All text blocks joined with "\n"; "" when there are none. */
  get text(): string {
    return textsOf(this.raw).join("\n");
  }

  get images(): ImageContent[] {
    return blocksOf(this.raw, "image");
  }

  get audio(): AudioContent[] {
    return blocksOf(this.raw, "audio");
  }

  get resourceLinks(): ResourceLink[] {
    return blocksOf(this.raw, "resource_link");
  }

  /** Embedded resources (`type: "resource"`). */
  get resources(): EmbeddedResource[] {
    return blocksOf(this.raw, "resource");
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

/**
 * A result with its parsed value beside the content: what a generated method returns for a tool
 * whose type was inferred from observations, and for a declared one asked `{ withResult: true }`.
 */
export class ParsedResult<T> extends ToolResult {
  /**
   * The result's JSON parsed by the tool's type. For an inferred type, leniently: a value that does
   * not match is passed on as it came (reported through onInferredMismatch), and a result that holds
   * no JSON (prose) has none: `undefined`, whatever `T` says; read `.text` then.
   */
  readonly value: T;

  constructor(serverId: string, toolName: string, raw: CallResult, value: T) {
    super(serverId, toolName, raw);
    this.value = value;
  }
}
