/**
 * pmcp-codegen/server: helpers for MCP servers whose tools publish typed output.
 * Only the SDK, zod and Ajv behind it, never generator or CLI code.
 */

export type { ToolDefinitionErrorCode } from "./errors.js";
export { ToolDefinitionError } from "./errors.js";
export type { ManifestTool, ToolManifest } from "./manifest.js";
export { ManifestToolSchema, parseToolManifest, ToolManifestSchema } from "./manifest.js";
export { registerFunctions } from "./register-functions.js";
export type { AsObject, ObjectSchema, TypedToolExtra, TypedToolHandler, TypedToolOptions } from "./typed-tool.js";
export { defaultTypeName, typedTool } from "./typed-tool.js";
