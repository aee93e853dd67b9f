import { interpolate, type StdioSource } from "@pmcp-codegen/runtime/internal";
import { parse } from "shell-quote";
import { PmcpError } from "../errors.js";

/**
 * Splits a `--stdio` command line into a command and args the way a POSIX shell would
 * (quotes, escapes), without running a shell. Pipes, redirects and globs are refused.
 * Returns both the interpolated words (to run) and the words as written (to record).
 */
export function splitCommandLine(line: string): Pick<StdioSource, "command" | "args" | "recorded"> {
  // `${VAR}` is left for our own interpolation, which knows defaults and reports unset names.
  const words = parse(line, (name) => `\${${name}}`).map((word) => {
    if (typeof word === "string") return word;
    throw new PmcpError(
      "INVALID_ARGUMENT",
      `--stdio "${line}": shell operators and globs are not supported; give one command with its arguments`,
    );
  });
  const [command, ...args] = words;
  if (command === undefined || command === "") throw new PmcpError("INVALID_ARGUMENT", `--stdio needs a command line, got "${line}"`);
  const where = `--stdio "${line}"`;
  return {
    command: interpolate(command, where),
    args: args.map((arg) => interpolate(arg, where)),
    recorded: { command, args },
  };
}
