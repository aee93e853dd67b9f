import { interpolate, type StdioSource } from "@pmcp-codegen/runtime/internal";
import { parse } from "shell-quote";
import { PmcpError } from "../../errors.js";

/**
 * Splits a `--stdio` command line into a command and args the way a POSIX shell would
 * (quotes, escapes), without running a shell. Pipes, redirects and globs are refused.
 * Returns both the interpolated words (to run) and the words as written (to record).
 */
export function splitCommandLine(line: string): Pick<StdioSource, "command" | "args" | "recorded"> {
  const open = unclosedQuote(line);
  if (open !== undefined) throw new PmcpError("INVALID_ARGUMENT", `--stdio "${line}": the ${open} quote is never closed`);
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

/** shell-quote reads an unclosed quote as if closed at the end, which runs a command nobody wrote. */
function unclosedQuote(line: string): string | undefined {
  let quote: string | undefined;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (quote === "'") {
      if (char === "'") quote = undefined;
    } else if (char === "\\") index++;
    else if (quote === '"') {
      if (char === '"') quote = undefined;
    } else if (char === "'" || char === '"') quote = char;
  }
  return quote === undefined ? undefined : quote === "'" ? "single" : "double";
}
