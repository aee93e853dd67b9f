/**
 * A line that could open or hold a code block: a fence, or indentation of four columns, after any
 * block quote markers and list markers, since rustdoc tests the code blocks inside those too.
 */
const CODE_LINE = /^[\s>]*(?:(?:[-+*]|\d+[.)])[\s>]*)*(?:`{3,}|~{3,}| {4}|\t)/;

/**
 * Rust doc comments (`///`) from untrusted text. A line comment ends at the line break, so no text
 * can close it; what remains dangerous is rustdoc's Markdown: a fenced or indented code block in a
 * description becomes a doctest that `cargo test` compiles and runs. Text that could open one is
 * put, whole, in a ```` ```text ```` fence longer than any run of backticks it holds, which rustdoc
 * never runs.
 */
export function rustDoc(text: string, indent = ""): string {
  const lines = plainLines(text);
  if (lines.length === 0) return "";
  const fenced = lines.some((line) => CODE_LINE.test(line));
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((run) => run[0].length));
  const fence = "`".repeat(Math.max(3, longest + 1));
  const body = fenced ? [`${fence}text`, ...lines, fence] : lines;
  return body.map((line) => `${indent}///${line === "" ? "" : ` ${line}`}\n`).join("");
}

/**
 * The text's lines: every kind of line break is one (a bare `\r` does not compile in a `///` line),
 * control characters go, and so do the bidirectional overrides and isolates, which rustc refuses in
 * a comment (`text_direction_codepoint_in_comment`, an error by default).
 */
function plainLines(text: string): string[] {
  const lines = text
    .replace(/\r\n?|[\u2028\u2029\u0085]/g, "\n")
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this takes out
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f\u202a-\u202e\u2066-\u2069]/g, " ")
    .split("\n")
    .map((line) => line.trimEnd());
  while (lines[0] === "") lines.shift();
  while (lines.at(-1) === "") lines.pop();
  return lines;
}
