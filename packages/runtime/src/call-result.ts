import type { AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent } from "@modelcontextprotocol/client";
import { z } from "zod";
import { InvalidResponseError, ToolCallError } from "./errors.js";

/**
 * Permissive on purpose: `structuredContent` may be any JSON value since protocol
 * 2026-07-28, content blocks of a type newer than the SDK are kept as they are, and the
 * fields are read defensively, so nothing more is checked here.
 */
export type CallResult = { content?: unknown; structuredContent?: unknown; isError?: unknown; _meta?: unknown };
export const CallResult = z.custom<CallResult>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "expected an object",
);

/** What a result is, for an observation log: a JSON value, or the kinds of its content blocks when it holds no JSON. */
export type Observed = { value: unknown } | { content: string[] };

/** The content array as sent; anything else counts as no content. */
export function contentOf(result: CallResult): unknown[] {
  return Array.isArray(result.content) ? result.content : [];
}

/** The content block types the MCP schema defines, each with its SDK type. */
export interface Blocks {
  text: TextContent;
  image: ImageContent;
  audio: AudioContent;
  resource_link: ResourceLink;
  resource: EmbeddedResource;
}

/** The string fields each block type requires. */
const REQUIRED: { readonly [type in keyof Blocks]: readonly string[] } = {
  text: ["text"],
  image: ["data", "mimeType"],
  audio: ["data", "mimeType"],
  resource_link: ["uri", "name"],
  resource: [],
};

/**
 * The blocks of one type that have what that type requires, in order. Anything else in the
 * array (null, a number, a block missing a required field) is skipped, never read as one.
 */
export function blocksOf<T extends keyof Blocks>(result: CallResult, type: T): Blocks[T][] {
  return contentOf(result).filter((block): block is Blocks[T] => isBlock(block, type));
}

/** Every block of a type the MCP schema defines that has what its type requires, in order. */
export function wholeBlocks(result: CallResult): Blocks[keyof Blocks][] {
  return contentOf(result).filter((block): block is Blocks[keyof Blocks] => isRecord(block) && isBlock(block, block.type as keyof Blocks));
}

function isBlock(block: unknown, type: keyof Blocks): boolean {
  if (
    !isRecord(block) ||
    block.type !== type ||
    !Object.hasOwn(REQUIRED, type) ||
    !REQUIRED[type].every((field) => typeof block[field] === "string")
  )
    return false;
  // An embedded resource's contents: a URI and its text or its base64 blob.
  const { resource } = block;
  return (
    type !== "resource" ||
    (isRecord(resource) && typeof resource.uri === "string" && (typeof resource.text === "string" || typeof resource.blob === "string"))
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text of every text block, in order. */
export function textsOf(result: CallResult): string[] {
  return blocksOf(result, "text").map((block) => block.text);
}

/** `isError` → ToolCallError with the text of all text blocks. */
export function throwIfError(server: string, tool: string, result: CallResult): void {
  if (result.isError === true) throw new ToolCallError(server, tool, textsOf(result).join("\n"));
}

/**
 * The JSON a result carries: `structuredContent`, else its first text block parsed as JSON
 * (servers that predate output schemas); else InvalidResponseError. The generated Rust clients
 * repeat these rules and blocksOf's for text blocks (`CallResult::into_json`, codegen/rust/render-rust.ts).
 */
export function resultJson(server: string, tool: string, result: CallResult): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = textsOf(result)[0];
  if (text === undefined) throw new InvalidResponseError("the result has neither structuredContent nor text content", server, tool, result);
  try {
    return JSON.parse(text);
  } catch {
    throw new InvalidResponseError(
      `the result has no structuredContent and its text is not JSON: ${JSON.stringify(text.slice(0, 80))}`,
      server,
      tool,
      result,
    );
  }
}

/**
 * A successful result as an observation: its JSON when it carries some, else the types of
 * its content blocks (prose, images, links), which no schema can be learned from.
 */
export function observedResult(server: string, tool: string, result: CallResult): Observed {
  try {
    return { value: resultJson(server, tool, result) };
  } catch (error) {
    if (!(error instanceof InvalidResponseError)) throw error;
    const kinds = contentOf(result).map((block) =>
      typeof block === "object" && block !== null && typeof (block as { type?: unknown }).type === "string"
        ? (block as { type: string }).type
        : "unknown",
    );
    return { content: [...new Set(kinds)] };
  }
}
