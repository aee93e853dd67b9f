/**
 * Two families of local failure, each mapped to the CLI's exit code: a usage error
 * (the command line or a config file is wrong: exit 2) and a runtime failure
 * (a server, the network or the disk let us down: exit 1).
 */
export class UsageError extends Error {
  readonly exitCode = 2;
  override readonly name = "UsageError";
}

export class RuntimeFailure extends Error {
  readonly exitCode = 1;
  override readonly name = "RuntimeFailure";
}

/** The one-line text of any thrown value, for messages that must stay on one line. */
export function errorMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/\s*\n\s*/g, " ").trim();
}
