import type { FileToWrite, WriteOptions } from "@pmcp-codegen/runtime/internal";
import { toJsonText } from "../bundle/serialize.js";
import { PmcpError } from "../errors.js";
import { ENDING_SIGNALS, raiseUnlessWatched } from "../signals.js";

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

/**
 * Writes a command's output files all or nothing (writeFilesAtomically), naming `flag`, the
 * option or setting that chose the path, in any failure. A signal meanwhile removes the staged
 * temp files and then ends the process as the signal would have; the renames themselves are
 * never interrupted.
 */
export async function writeOutput(flag: string, files: readonly FileToWrite[], options: WriteOptions = {}): Promise<void> {
  const { discardStagedFiles, OutputPathError, writeFilesAtomically } = await import("@pmcp-codegen/runtime/internal");
  let interrupted: NodeJS.Signals | undefined;
  let backstop: NodeJS.Timeout | undefined;
  const endNow = () => {
    for (const name of ENDING_SIGNALS) process.off(name, end);
    if (interrupted !== undefined) raiseUnlessWatched(interrupted);
  };
  const end = (signal: NodeJS.Signals) => {
    interrupted ??= signal;
    // Writes still in flight would create their temp files after this removal: the write fails
    // on its own once they settle and removes them, then `finally` ends the process. A write that
    // never settles (a FIFO nobody reads) must not keep the process alive.
    discardStagedFiles();
    backstop ??= setTimeout(endNow, 2_000);
  };
  for (const name of ENDING_SIGNALS) process.on(name, end);
  try {
    await writeFilesAtomically(files, options);
  } catch (error) {
    if (error instanceof OutputPathError) throw new PmcpError("INVALID_ARGUMENT", `${flag} ${error.path}: ${error.reason}`);
    const path = (error as NodeJS.ErrnoException).path;
    throw new PmcpError(
      "IO_FAILED",
      `cannot write ${path ?? files.map((file) => file.path).join(", ")} (${flag}): ${systemReason(error)}`,
      {
        cause: error,
      },
    );
  } finally {
    clearTimeout(backstop);
    endNow();
  }
}

/** "no space left on device" from Node's "ENOSPC: no space left on device, write". */
export function systemReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /^[A-Z]+: ([^,]+)/.exec(message)?.[1] ?? message;
}
