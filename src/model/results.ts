import type { ContentBlock, ImageContent } from "@modelcontextprotocol/client";
import type { ToolResult } from "@pmcp-codegen/runtime";
import type { Profile } from "../providers/facts.js";
import type { OpenAiApi } from "./declarations.js";

/**
 * What came of a call: the tool's result, or an error the model is to read (an `isError` result's
 * text, or why its arguments were refused).
 */
export type CallOutcome = Pick<ToolResult, "blocks" | "structuredContent"> | { error: string };

/**
 * The call being answered: the tool's name as the model called it, and the id the model gave the
 * call. OpenAI and Anthropic require the id to pair the answer with its call; without one it is "".
 */
export interface ModelCall {
  name: string;
  id?: string;
}

/** A Responses API `function_call_output` input item. */
export interface ResponsesFunctionCallOutput {
  type: "function_call_output";
  call_id: string;
  output: string | ResponsesOutputPart[];
}

export type ResponsesOutputPart = { type: "input_text"; text: string } | { type: "input_image"; image_url: string };

/** A Chat Completions tool message. */
export interface ChatToolMessage {
  role: "tool";
  tool_call_id: string;
  content: string;
}

/** A Gemini `Part` holding a `functionResponse`. */
export interface GeminiFunctionResponsePart {
  functionResponse: {
    id?: string;
    name: string;
    response: Record<string, unknown>;
    parts?: { inlineData: { mimeType: string; data: string } }[];
  };
}

/** An Anthropic `tool_result` content block. */
export interface AnthropicToolResult {
  type: "tool_result";
  tool_use_id: string;
  content: string | AnthropicResultPart[];
  is_error?: true;
}

type AnthropicImageType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";

export type AnthropicResultPart =
  | { type: "text"; text: string }
  | { type: "image"; source: { type: "base64"; media_type: AnthropicImageType; data: string } };

export type ProviderResult = ResponsesFunctionCallOutput | ChatToolMessage | GeminiFunctionResponsePart | AnthropicToolResult;

/**
 * A tool's outcome in the function-result shape of the profile's provider. The model always gets
 * readable text, so that a call that worked never reads as one that failed: the text blocks (else
 * the JSON of `structuredContent`), a line for each other block, and a sentence when there is
 * nothing at all. Images go as the provider's image parts where it takes their type; an error is
 * marked so that the model sees it as one. Every string of the outcome is placed as a value only.
 */
export function providerResult(
  profile: "openai" | "openai-strict",
  outcome: CallOutcome,
  call: ModelCall,
  options: { api: "chat" },
): ChatToolMessage;
export function providerResult(
  profile: "openai" | "openai-strict",
  outcome: CallOutcome,
  call: ModelCall,
  options?: { api?: "responses" },
): ResponsesFunctionCallOutput;
export function providerResult(profile: "portable", outcome: CallOutcome, call: ModelCall): ChatToolMessage;
export function providerResult(profile: "gemini" | "gemini-json", outcome: CallOutcome, call: ModelCall): GeminiFunctionResponsePart;
export function providerResult(profile: "anthropic" | "anthropic-strict", outcome: CallOutcome, call: ModelCall): AnthropicToolResult;
export function providerResult(profile: Profile, outcome: CallOutcome, call: ModelCall, options?: { api?: OpenAiApi }): ProviderResult;
export function providerResult(profile: Profile, outcome: CallOutcome, call: ModelCall, options?: { api?: OpenAiApi }): ProviderResult {
  switch (profile) {
    case "openai":
    case "openai-strict":
      return options?.api === "chat" ? chatMessage(outcome, call) : responsesOutput(outcome, call);
    case "portable":
      return chatMessage(outcome, call);
    case "gemini":
    case "gemini-json":
      return geminiPart(outcome, call);
    case "anthropic":
    case "anthropic-strict":
      return anthropicResult(outcome, call);
  }
}

/** The image types a provider takes in a tool's result, and what the model reads about an image of another type. */
interface ImageRule<Type extends string> {
  types: readonly Type[];
  refusal: string;
}

/** An image sent as a part, its type one its provider takes. */
interface CarriedImage<Type extends string> {
  mimeType: Type;
  data: string;
}

/** A result as the model reads it: its text, and the images that go beside it as parts. */
interface Readable<Type extends string> {
  text: string;
  images: CarriedImage<Type>[];
}

// OpenAI's and Anthropic's vision guides, and Gemini's function-calling guide (multimodal function responses).
const RESPONSES_IMAGES: ImageRule<string> = {
  types: ["image/png", "image/jpeg", "image/webp", "image/gif"],
  refusal: "OpenAI takes PNG, JPEG, WebP and GIF images only",
};
const CHAT_IMAGES: ImageRule<string> = { types: [], refusal: "Chat Completions tool messages carry text only" };
const GEMINI_IMAGES: ImageRule<string> = {
  types: ["image/png", "image/jpeg", "image/webp"],
  refusal: "Gemini takes PNG, JPEG and WebP images in a function response",
};
const ANTHROPIC_IMAGES: ImageRule<AnthropicImageType> = {
  types: ["image/jpeg", "image/png", "image/gif", "image/webp"],
  refusal: "Anthropic takes JPEG, PNG, GIF and WebP images only",
};

const NO_CONTENT = "The tool returned no content.";
const NO_ERROR_TEXT = "The tool reported an error without a message.";

/** OpenAI has no error flag: the text says so first. */
const OPENAI_ERROR = "Error: ";

function responsesOutput(outcome: CallOutcome, call: ModelCall): ResponsesFunctionCallOutput {
  const call_id = call.id ?? "";
  if ("error" in outcome) return { type: "function_call_output", call_id, output: OPENAI_ERROR + errorText(outcome) };
  const output = textThenImages<ResponsesOutputPart, string>(readable(outcome, RESPONSES_IMAGES), {
    text: (text) => ({ type: "input_text", text }),
    image: (image) => ({ type: "input_image", image_url: `data:${image.mimeType};base64,${image.data}` }),
  });
  return { type: "function_call_output", call_id, output };
}

function chatMessage(outcome: CallOutcome, call: ModelCall): ChatToolMessage {
  const content = "error" in outcome ? OPENAI_ERROR + errorText(outcome) : readable(outcome, CHAT_IMAGES).text;
  return { role: "tool", tool_call_id: call.id ?? "", content };
}

/** Gemini's `response` must be an object: Google's convention puts the output under "output" and an error under "error". */
function geminiPart(outcome: CallOutcome, call: ModelCall): GeminiFunctionResponsePart {
  const id = call.id === undefined ? {} : { id: call.id };
  if ("error" in outcome) return { functionResponse: { ...id, name: call.name, response: { error: errorText(outcome) } } };
  const { text, images } = readable(outcome, GEMINI_IMAGES);
  const structured = outcome.structuredContent;
  const response = typeof structured === "object" && structured !== null && !Array.isArray(structured) ? structured : { output: text };
  const parts = images.map((image) => ({ inlineData: { mimeType: image.mimeType, data: image.data } }));
  return { functionResponse: { ...id, name: call.name, response, ...(parts.length === 0 ? {} : { parts }) } };
}

function anthropicResult(outcome: CallOutcome, call: ModelCall): AnthropicToolResult {
  const tool_use_id = call.id ?? "";
  if ("error" in outcome) return { type: "tool_result", tool_use_id, content: errorText(outcome), is_error: true };
  const content = textThenImages<AnthropicResultPart, AnthropicImageType>(readable(outcome, ANTHROPIC_IMAGES), {
    text: (text) => ({ type: "text", text }),
    image: ({ mimeType, data }) => ({ type: "image", source: { type: "base64", media_type: mimeType, data } }),
  });
  return { type: "tool_result", tool_use_id, content };
}

/** The text alone when no image goes with it, else the text then the images, as the provider's parts. */
function textThenImages<Part, Type extends string>(
  { text, images }: Readable<Type>,
  part: { text: (text: string) => Part; image: (image: CarriedImage<Type>) => Part },
): string | Part[] {
  return images.length === 0 ? text : [part.text(text), ...images.map(part.image)];
}

function errorText(outcome: { error: string }): string {
  return outcome.error.trim() === "" ? NO_ERROR_TEXT : outcome.error;
}

/**
 * The result as text, and the images the provider takes as parts. The text blocks come as they
 * are, each other block as a line in its place (an image sent as a part says where it was); without
 * text blocks, the JSON of `structuredContent` comes first.
 */
function readable<Type extends string>(result: Exclude<CallOutcome, { error: string }>, rule: ImageRule<Type>): Readable<Type> {
  const lines: string[] = [];
  // Text that says nothing (an empty file's "") leaves the structured value to say it.
  if (!result.blocks.some((block) => block.type === "text" && block.text.trim() !== "") && result.structuredContent !== undefined)
    lines.push(JSON.stringify(result.structuredContent));
  const images: CarriedImage<Type>[] = [];
  for (const block of result.blocks) {
    if (block.type === "image") {
      const described = `image ${block.mimeType}, ${sizeOf(block.data)}`;
      if (takes(rule, block.mimeType)) {
        images.push({ mimeType: block.mimeType, data: block.data });
        lines.push(`[${described}]`);
      } else lines.push(`[${described} not shown: ${rule.refusal}]`);
    } else lines.push(lineOf(block));
  }
  const text = lines.join("\n");
  return { text: text.trim() === "" ? NO_CONTENT : text, images };
}

function takes<Type extends string>(rule: ImageRule<Type>, mimeType: string): mimeType is Type {
  return rule.types.some((type) => type === mimeType);
}

/** A block other than an image as a line of text: what it is, or its text. */
function lineOf(block: Exclude<ContentBlock, ImageContent>): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "audio":
      return `[audio ${block.mimeType}, ${sizeOf(block.data)} not shown: tool results carry no audio]`;
    case "resource_link":
      return `[resource link ${block.uri} (${block.name})]`;
    case "resource": {
      const { resource } = block;
      if ("text" in resource) return resource.text;
      return `[resource ${resource.uri}, ${resource.mimeType ?? "binary"}, ${sizeOf(resource.blob)} not shown]`;
    }
  }
}

/** The size of base64 data, decoded, as a person would say it. */
function sizeOf(base64: string): string {
  const padding = base64.endsWith("==") ? 2 : base64.endsWith("=") ? 1 : 0;
  const bytes = Math.max(0, Math.floor((base64.length * 3) / 4) - padding);
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
