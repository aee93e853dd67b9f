/**
 * @pmcp-codegen/runtime/internal/text: text for one-line messages and for terminals, shared with
 * pmcp-codegen's CLI. It loads nothing; no compatibility promise, as for `internal`.
 */

/** The one-line text of any thrown value, for messages that must stay on one line. */
export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/** The first line of a text, at most 200 characters: what a one-line message quotes of a longer one. */
export function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 200);
}

/**
 * Text for a terminal. Tool names, descriptions, schema keys and the lines a server prints are the
 * server's text, so control characters (terminal escapes, BEL, CR among them; not tab or newline)
 * become `\uXXXX`: they cannot restyle the terminal, retitle it or overwrite a line. JSON output and
 * files keep the text as it is.
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this takes out
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}
