/**
 * What a tool result's content holds: its blocks of each type the MCP schema defines, and the
 * JSON it carries. Rules only, importing nothing at run time, so that code mode's sandbox runs
 * this module itself (bundled into its prelude, `src/exec/guest/`) and judges results as the
 * runtime does (`@pmcp-codegen/runtime/internal/blocks`).
 */

import type { AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextContent } from "@modelcontextprotocol/client";

/**
 * Permissive on purpose: `structuredContent` may be any JSON value since protocol
 * 2026-07-28, content blocks of a type newer than the SDK are kept as they are, and the
 * fields are read defensively, so nothing more is checked here.
 */
export type CallResult = { content?: unknown; structuredContent?: unknown; isError?: unknown; _meta?: unknown };

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

/** The content array as sent; anything else counts as no content. */
export function contentOf(result: CallResult): unknown[] {
  return Array.isArray(result.content) ? result.content : [];
}

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

/** A JSON object: not null, not an array. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The text of every text block, in order. */
export function textsOf(result: CallResult): string[] {
  return blocksOf(result, "text").map((block) => block.text);
}

/**
 * The JSON a result carries: `structuredContent`, else its first text block parsed as JSON
 * (servers that predate output schemas); else what `fail` throws, given why. The generated Rust
 * clients repeat these rules and blocksOf's for text blocks (`CallResult::into_json`,
 * codegen/rust/render-rust.ts).
 */
export function jsonOf(result: CallResult, fail: (message: string) => never): unknown {
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = textsOf(result)[0];
  if (text === undefined) return fail("the result has neither structuredContent nor text content");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail(`the result has no structuredContent and its text is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
  }
  return value;
}
