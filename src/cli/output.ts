import { toJsonText } from "../bundle/serialize.js";

/** Global output switches shared by every command. */
export interface OutputOptions {
  quiet: boolean;
  json: boolean;
}

/** Human-readable lines on stdout, silenced by `--quiet` and replaced by the summary under `--json`. */
export function say(options: OutputOptions, line: string): void {
  if (!options.quiet && !options.json) process.stdout.write(`${line}\n`);
}

/** Warnings go to stderr so that stdout stays parseable; `--quiet` hides them. */
export function warn(options: OutputOptions, line: string): void {
  if (!options.quiet) process.stderr.write(`warning: ${line}\n`);
}

export function printJson(value: unknown): void {
  process.stdout.write(toJsonText(value));
}

/** "1 server", "3 servers". */
export function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
