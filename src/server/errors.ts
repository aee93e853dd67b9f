import { PmcpError } from "../errors.js";

export type ToolDefinitionErrorCode =
  /** The manifest is not JSON or not a tool manifest (two tools of one name among its faults). */
  | "INVALID_MANIFEST"
  /** The manifest names a function, class or factory the module does not export. */
  | "MISSING_FUNCTION"
  /** A tool's class could not be constructed, or its factory threw. */
  | "INSTANCE_FAILED"
  /** A tool takes the name of the tool a shortened listing adds, `enable_tools`. */
  | "DUPLICATE_TOOL"
  /** A tool draws on a rate-limit bucket that `registerFunctions`' options do not define. */
  | "UNKNOWN_BUCKET"
  /** An option of `registerFunctions` has a value it cannot take. */
  | "INVALID_OPTIONS"
  /** A tool's input or output schema does not compile. */
  | "INVALID_SCHEMA";

/**
 * What `typedTool`, `registerFunctions` and `parseToolManifest` throw when a tool cannot be
 * served as defined, with a stable code; the message names the manifest and the tool.
 */
export class ToolDefinitionError extends PmcpError<ToolDefinitionErrorCode> {
  override readonly name = "ToolDefinitionError";
}
