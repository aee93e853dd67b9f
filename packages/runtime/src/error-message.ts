/** The one-line text of any thrown value, for messages that must stay on one line. */
export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s*\n\s*/g, " ").trim();
}

/** The first line of a text, at most 200 characters: what a one-line message quotes of a longer one. */
export function firstLine(text: string): string {
  return (text.split("\n")[0] ?? "").slice(0, 200);
}
