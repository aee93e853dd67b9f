import { printable } from "@pmcp-codegen/runtime/internal/text";
import { toJsonText } from "../../bundle/serialize.js";

/** The runtime's, so that its own warnings and the CLI's make a server's text printable alike. */
export { printable };

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

export function printJson(value: unknown): void {
  process.stdout.write(toJsonText(value));
}
