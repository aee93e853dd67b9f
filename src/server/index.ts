/**
 * pmcp-codegen/server: helpers for MCP servers whose tools publish typed output.
 * Only the SDK, zod and Ajv behind it, never generator or CLI code.
 */

export { UNLISTED_TOOLS_META } from "../bundle/tool-tags.js";
export type { ToolDefinitionErrorCode } from "./errors.js";
export { ToolDefinitionError } from "./errors.js";
export type { ManifestTool, ToolManifest } from "./manifest.js";
export { ManifestToolSchema, ToolManifestSchema } from "./manifest.js";
export type { RateLimit, RateLimits } from "./rate-limits.js";
export { RETRY_AFTER_MS_META } from "./rate-limits.js";
export { parseToolManifest } from "./read-manifest.js";
export { registerFunctions } from "./register-functions.js";
export type { RegisterFunctionsOptions } from "./register-options.js";
export type { ToolListing } from "./tool-listing.js";
export { ENABLE_TOOLS } from "./tool-listing.js";
export type { AsObject, ObjectSchema, TypedToolExtra, TypedToolHandler, TypedToolOptions } from "./typed-tool.js";
export { defaultTypeName, typedTool } from "./typed-tool.js";
