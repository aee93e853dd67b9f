/**
 * A string as a Rust string literal: quotes, backslashes and every character outside printable
 * ASCII escaped, so no text can end the literal or change the lines around it. A lone surrogate,
 * which no Rust string can hold, becomes U+FFFD.
 */
export function rustString(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (char === '"' || char === "\\") out += `\\${char}`;
    else if (code >= 0x20 && code < 0x7f) out += char;
    else out += `\\u{${(code >= 0xd800 && code <= 0xdfff ? 0xfffd : code).toString(16)}}`;
  }
  return `${out}"`;
}
