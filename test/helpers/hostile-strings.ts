/**
 * Schemas come from servers we do not control: no string in a bundle may become code.
 * Every payload below, if it ever ran, would set `globalThis.__pwned`.
 */

export const PAYLOADS = [
  "*/ globalThis.__pwned = 'comment'; /*",
  '"; globalThis.__pwned = "string"; //',
  "'; globalThis.__pwned = 'single'; //",
  "` + (globalThis.__pwned = 'template') + `",
  "${globalThis.__pwned = 'interpolation'}",
  "\u2028globalThis.__pwned = 'u2028';\u2029",
  "\n globalThis.__pwned = 'newline'; //",
  "\\\"); globalThis.__pwned = 'backslash'; //",
  "</script><script>globalThis.__pwned = 'html'</script>",
];
