/**
 * pmcp-codegen/server: helpers for MCP servers whose tools publish typed output.
 * Only the SDK, zod and Ajv behind it, never generator or CLI code.
 */
export { typedTool, defaultTypeName } from "./typed-tool.js";
export type { AsObject, ObjectSchema, TypedToolExtra, TypedToolHandler, TypedToolOptions } from "./typed-tool.js";
export { registerFunctions } from "./register-functions.js";
export { ManifestToolSchema, ToolManifestSchema, parseToolManifest } from "./manifest.js";
export type { ManifestTool, ToolManifest } from "./manifest.js";
export { ToolDefinitionError } from "./errors.js";
export type { ToolDefinitionErrorCode } from "./errors.js";
