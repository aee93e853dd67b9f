/**
 * pmcp-codegen/model: MCP tools handed to an LLM provider and its answers brought back. Loads no
 * generator code (no TypeScript compiler, templates or quicktype): an orchestrator imports it at run time.
 */

export { readBundle } from "../bundle-files/read.js";
export type { RestoreErrorCode, RestoreOptions } from "../normalize/restore.js";
export { RestoreError, restoreArguments } from "../normalize/restore.js";
export type { Profile } from "../providers/facts.js";
export { PROFILES } from "../providers/facts.js";
export type {
  AnthropicTool,
  ChatFunctionTool,
  GeminiFunctionDeclaration,
  GeminiJsonFunctionDeclaration,
  GeminiTools,
  ModelDeclaration,
  OpenAiApi,
  ResponsesFunctionTool,
} from "./declarations.js";
export { providerTools } from "./declarations.js";
export type {
  AnthropicToolResult,
  ChatToolMessage,
  GeminiFunctionResponsePart,
  ModelCall,
  ResponsesFunctionCallOutput,
} from "./results.js";
export { providerResult } from "./results.js";
export type {
  ModelCallOptions,
  ModelTool,
  ModelToolset,
  ProviderShapes,
  RestoredCall,
  Skipped,
  ToolsForModelOptions,
} from "./tools-for-model.js";
export { toolsForModel, UnknownToolError } from "./tools-for-model.js";
