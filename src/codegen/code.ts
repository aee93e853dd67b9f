/**
 * The only way a string from a bundle reaches generated code. Every helper turns
 * untrusted text into something that can only be data in its position: a string
 * literal, a quoted key, comment text, or an identifier checked against an allow-list.
 */

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** A JSON value as a JavaScript literal. U+2028/U+2029 are escaped so no runtime reads them as line ends. */
export function literal(value: unknown): string {
  return (JSON.stringify(value) ?? "undefined").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/**
 * An object key in a type literal: bare when it is an identifier (keywords are fine there), else
 * quoted. `__proto__` is quoted too, so that a reader sees a plain property, not the prototype.
 */
export function typeKey(key: string): string {
  return IDENTIFIER.test(key) && key !== "__proto__" ? key : literal(key);
}

/**
 * An object key in an object literal (a zod shape). `__proto__` written as a plain or quoted key
 * would set the prototype instead of defining a property, so it is always computed.
 */
export function valueKey(key: string): string {
  if (key === "__proto__") return `[${literal(key)}]`;
  return IDENTIFIER.test(key) ? key : literal(key);
}

/** Text safe inside a block comment: no `*\/`, no line breaks of any kind, no control characters. */
export function commentText(text: string): string {
  return (
    text
      .replace(/\*\//g, "*\\/")
      .replace(/\r\n?|[\n\u2028\u2029\u0085]/g, " ")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this takes out
      .replace(/[\u0000-\u001f\u007f]/g, " ")
      .trim()
  );
}

/** A JSDoc block from lines of untrusted text (each made safe), indented for its position. */
export function docComment(lines: readonly string[], indent = ""): string {
  const safe = lines.flatMap((line) => (line === "" ? [""] : [commentText(line)]));
  while (safe[0] === "") safe.shift();
  while (safe[safe.length - 1] === "") safe.pop();
  if (safe.length === 0) return "";
  if (safe.length === 1) return `${indent}/** ${safe[0]} */\n`;
  return `${indent}/**\n${safe.map((line) => `${indent} *${line ? ` ${line}` : ""}`).join("\n")}\n${indent} */\n`;
}
