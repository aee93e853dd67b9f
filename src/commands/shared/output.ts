import { toJsonText } from "../../bundle/serialize.js";

/** Global output switches shared by every command. */
export interface OutputOptions {
  quiet: boolean;
  json: boolean;
}

/** Human-readable lines on stdout, silenced by `--quiet` and replaced by the summary under `--json`. */
export function say(options: OutputOptions, line: string): void {
  if (!options.quiet && !options.json) process.stdout.write(`${printable(line)}\n`);
}

/** Warnings go to stderr so that stdout stays parseable; `--quiet` hides them. */
export function warn(options: OutputOptions, line: string): void {
  if (!options.quiet) process.stderr.write(`warning: ${printable(line)}\n`);
}

/**
 * Human-readable text for a terminal. Tool names, descriptions and schema keys are the server's
 * text, so control characters (terminal escapes, BEL, CR among them; not tab or newline) become
 * `\uXXXX`: they cannot restyle the terminal, retitle it or overwrite a line. JSON output and
 * files keep the text as it is.
 */
export function printable(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this takes out
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

export function printJson(value: unknown): void {
  process.stdout.write(toJsonText(value));
}
