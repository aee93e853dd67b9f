import type { Profile } from "../providers/facts.js";

/** A tool as a model is to see it, whatever the provider: its schema already normalized for the profile. */
export interface ModelDeclaration {
  name: string;
  description: string;
  /** A JSON Schema for the arguments, its root an object. */
  parameters: Record<string, unknown>;
  /** Whether the provider is to hold the model to the schema (OpenAI and Anthropic strict modes). */
  strict: boolean;
}

/** Which OpenAI API the requests go to: both take function tools, in different shapes. */
export type OpenAiApi = "responses" | "chat";

/** The Responses API's `FunctionTool`. */
export interface ResponsesFunctionTool {
  type: "function";
  name: string;
  description: string;
  parameters: Record<string, unknown>;
  strict: boolean;
}

/** Chat Completions' `ChatCompletionFunctionTool`, also what gateways (OpenRouter, LiteLLM) take for every provider. */
export interface ChatFunctionTool {
  type: "function";
  function: { name: string; description: string; parameters: Record<string, unknown>; strict: boolean };
}

/** A Gemini `FunctionDeclaration` with the OpenAPI-subset `parameters`; none for a tool that takes no arguments. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: Record<string, unknown>;
}

/** A Gemini `FunctionDeclaration` with `parametersJsonSchema`; none for a tool that takes no arguments. */
export interface GeminiJsonFunctionDeclaration {
  name: string;
  description: string;
  parametersJsonSchema?: Record<string, unknown>;
}

/** Gemini's `tools` request field: one `Tool` holding every declaration. */
export type GeminiTools<Declaration> = [{ functionDeclarations: Declaration[] }];

/** Anthropic's `Tool`; `strict` only on a strict tool. */
export interface AnthropicTool {
  name: string;
  description: string;
  input_schema: { type: "object"; [keyword: string]: unknown };
  strict?: true;
}

export type ProviderTools =
  | ResponsesFunctionTool[]
  | ChatFunctionTool[]
  | GeminiTools<GeminiFunctionDeclaration>
  | GeminiTools<GeminiJsonFunctionDeclaration>
  | AnthropicTool[];

/**
 * The declarations in the request shape of the profile's provider, ready for its SDK's `tools`
 * field. OpenAI's profiles give the Responses API's shape unless `api` is "chat"; `portable` gives
 * Chat Completions' shape, non-strict, which gateways translate for every provider.
 */
export function providerTools(
  profile: "openai" | "openai-strict",
  declarations: readonly ModelDeclaration[],
  options: { api: "chat" },
): ChatFunctionTool[];
export function providerTools(
  profile: "openai" | "openai-strict",
  declarations: readonly ModelDeclaration[],
  options?: { api?: "responses" },
): ResponsesFunctionTool[];
export function providerTools(profile: "portable", declarations: readonly ModelDeclaration[]): ChatFunctionTool[];
export function providerTools(profile: "gemini", declarations: readonly ModelDeclaration[]): GeminiTools<GeminiFunctionDeclaration>;
export function providerTools(
  profile: "gemini-json",
  declarations: readonly ModelDeclaration[],
): GeminiTools<GeminiJsonFunctionDeclaration>;
export function providerTools(profile: "anthropic" | "anthropic-strict", declarations: readonly ModelDeclaration[]): AnthropicTool[];
export function providerTools(profile: Profile, declarations: readonly ModelDeclaration[], options?: { api?: OpenAiApi }): ProviderTools;
export function providerTools(profile: Profile, declarations: readonly ModelDeclaration[], options?: { api?: OpenAiApi }): ProviderTools {
  switch (profile) {
    case "openai":
    case "openai-strict":
      return options?.api === "chat" ? declarations.map((tool) => chatTool(tool, tool.strict)) : declarations.map(responsesTool);
    case "portable":
      return declarations.map((tool) => chatTool(tool, false));
    case "gemini":
      return [{ functionDeclarations: declarations.map(geminiDeclaration) }];
    case "gemini-json":
      return [{ functionDeclarations: declarations.map(geminiJsonDeclaration) }];
    case "anthropic":
    case "anthropic-strict":
      return declarations.map(anthropicTool);
  }
}

function responsesTool({ name, description, parameters, strict }: ModelDeclaration): ResponsesFunctionTool {
  return { type: "function", name, description, parameters, strict };
}

function chatTool({ name, description, parameters }: ModelDeclaration, strict: boolean): ChatFunctionTool {
  return { type: "function", function: { name, description, parameters, strict } };
}

function geminiDeclaration({ name, description, parameters }: ModelDeclaration): GeminiFunctionDeclaration {
  return takesArguments(parameters) ? { name, description, parameters } : { name, description };
}

function geminiJsonDeclaration({ name, description, parameters }: ModelDeclaration): GeminiJsonFunctionDeclaration {
  const { $schema: _dialect, ...schema } = parameters;
  return takesArguments(schema) ? { name, description, parametersJsonSchema: schema } : { name, description };
}

function anthropicTool({ name, description, parameters, strict }: ModelDeclaration): AnthropicTool {
  // Normalizing roots every schema at an object; the SDK's type holds the API to saying so.
  const input_schema = { ...parameters, type: "object" as const };
  return strict ? { name, description, input_schema, strict: true } : { name, description, input_schema };
}

/** Gemini rejects an empty `properties`: a tool declaring none is declared without parameters. */
function takesArguments(parameters: Record<string, unknown>): boolean {
  const properties = parameters.properties;
  return typeof properties === "object" && properties !== null && Object.keys(properties).length > 0;
}
