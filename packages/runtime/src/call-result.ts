import { z } from "zod";
import { InvalidResponseError, ToolCallError } from "./errors.js";

/**
 * Permissive on purpose: `structuredContent` may be any JSON value since protocol
 * 2026-07-28, and `resultValue` reads the fields defensively, so nothing more is checked here.
 */
export type CallResult = { content?: unknown; structuredContent?: unknown; isError?: unknown };
export const CallResult = z.custom<CallResult>(
  (value) => typeof value === "object" && value !== null && !Array.isArray(value),
  "expected an object",
);

/**
 * The value a tool returned: `isError` → ToolCallError; else `structuredContent`, else its
 * first text block parsed as JSON (servers that predate output schemas), else InvalidResponseError.
 */
export function resultValue(server: string, tool: string, result: CallResult): unknown {
  const texts = (Array.isArray(result.content) ? result.content : []).flatMap((block: unknown) =>
    typeof block === "object" &&
    block !== null &&
    (block as { type?: unknown }).type === "text" &&
    typeof (block as { text?: unknown }).text === "string"
      ? [(block as { text: string }).text]
      : [],
  );
  if (result.isError === true) throw new ToolCallError(server, tool, texts.join("\n"));
  if (result.structuredContent !== undefined) return result.structuredContent;
  const text = texts[0];
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
