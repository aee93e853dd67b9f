/** Keywords that describe an instance rather than constrain it. */
export const ANNOTATIONS: ReadonlySet<string> = new Set(["title", "description", "default"]);

/** A description with `text` added after what it already says. */
export function appendText(existing: unknown, text: string): string {
  return typeof existing === "string" && existing !== "" ? `${existing} ${text}` : text;
}
