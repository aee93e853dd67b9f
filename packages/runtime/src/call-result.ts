import { z } from "zod";
import { contentOf, jsonOf, type CallResult as ResultShape, textsOf } from "./content-blocks.js";
import { InvalidResponseError, ToolCallError } from "./errors.js";

export type { Blocks } from "./content-blocks.js";
export { blocksOf, contentOf, textsOf, wholeBlocks } from "./content-blocks.js";

/** A tools/call result as content-blocks.ts reads it, and its check: an object. */
export type CallResult = ResultShape;
export const CallResult = z.custom<CallResult>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "expected an object",
);

/** What a result is, for an observation log: a JSON value, or the kinds of its content blocks when it holds no JSON. */
export type Observed = { value: unknown } | { content: string[] };

/** `isError` → ToolCallError with the text of all text blocks. */
export function throwIfError(server: string, tool: string, result: CallResult): void {
  if (result.isError === true) throw new ToolCallError(server, tool, textsOf(result).join("\n"));
}

/** The JSON a result carries (jsonOf), else InvalidResponseError. */
export function resultJson(server: string, tool: string, result: CallResult): unknown {
  return jsonOf(result, (message) => {
    throw new InvalidResponseError(message, server, tool, result);
  });
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
