const USAGE_CODES = new Set([
  // pmcp-codegen (src/errors.ts)
  "INVALID_ARGUMENT",
  "INVALID_CONFIG",
  "NOT_FOUND",
  // @pmcp-codegen/runtime: a bad mcpServers entry or config file
  "CONFIGURATION",
]);

export function isUsageError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // yargs reports unknown flags, missing arguments and failed checks as YError.
  return (typeof code === "string" && USAGE_CODES.has(code)) || (error as Error | undefined)?.name === "YError";
}

/**
 * The CLI's exit codes: 2 when the command line or a file it names is wrong (the user must
 * change what they typed or wrote), 1 when the work itself failed (a server, the network,
 * a check, the disk). Library code never knows these numbers; it throws errors with codes.
 */
export function exitCodeOf(error: unknown): 1 | 2 {
  return isUsageError(error) ? 2 : 1;
}
