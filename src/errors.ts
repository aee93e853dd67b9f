import { BrandedError } from "@pmcp-codegen/runtime/internal/errors";

export type PmcpErrorCode =
  /** An option or argument is wrong: a flag value, a server id, a command line. */
  | "INVALID_ARGUMENT"
  /** `pmcp.config` or an `mcpServers` file is missing a part, malformed or unloadable. */
  | "INVALID_CONFIG"
  /** An input file or folder does not exist or cannot be read. */
  | "NOT_FOUND"
  /** An input file exists but its content is wrong: a bundle, a manifest, an observation log, a source module. */
  | "INVALID_INPUT"
  /** A tool named on the command line is in no server of the bundle. */
  | "TOOL_NOT_FOUND"
  /** A server could not be started, reached, initialized or listed, or broke the protocol. */
  | "SERVER_FAILED"
  /** A `--check` found files on disk that differ from what would be written. */
  | "OUT_OF_DATE"
  /** A check found problems at or above the level that fails: lint errors, breaking changes, failed calls. */
  | "CHECK_FAILED"
  /** A program run by `pmcp exec` failed: refused by the type-check, stopped by a limit, or it threw. */
  | "PROGRAM_FAILED"
  /** Listening on a port or writing a file failed. */
  | "IO_FAILED";

/**
 * What a pmcp-codegen library function throws when it cannot do its job, and the base of the
 * package's other errors (RestoreError, UnknownToolError, ToolDefinitionError), each with codes
 * of its own. The code says why, in words a caller can switch on and log; it is stable across
 * releases. `instanceof` holds across two copies of the package (BrandedError). Exit codes are
 * the CLI's business alone (`src/cli/exit-code.ts`).
 */
export class PmcpError<Code extends string = PmcpErrorCode> extends BrandedError {
  override readonly name: string = "PmcpError";

  constructor(
    readonly code: Code,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
