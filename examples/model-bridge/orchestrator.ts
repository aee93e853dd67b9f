// An orchestrator, done with pmcp-codegen/model: MCP tools handed to Gemini or OpenAI, the
// calls the model makes run against the MCP servers, and what they returned given back in a form the
// model reads. The model client is a parameter: a real `GoogleGenAI` or `OpenAI` in production, recorded
// answers in the test (test/integration/orchestrator-example.test.ts).

import type { Content, GoogleGenAI, Part } from "@google/genai";
import type { CompositionClient } from "@pmcp-codegen/runtime";
import type OpenAI from "openai";
import type { ResponseInput } from "openai/resources/responses/responses";
import { toolsForModel } from "pmcp-codegen/model";

/** Turns a model may take calling tools before it answers. */
const MAX_TURNS = 8;

/** Asks Gemini `question` with every tool of `client`'s servers, declared as Gemini's `parameters` accept them. */
export async function askGemini(ai: Pick<GoogleGenAI, "models">, client: CompositionClient, question: string): Promise<string> {
  const toolset = await toolsForModel(client, { profile: "gemini" });
  const contents: Content[] = [{ role: "user", parts: [{ text: question }] }];
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const response = await ai.models.generateContent({ model: "gemini-2.5-flash", contents, config: { tools: toolset.tools } });
    const content = response.candidates?.[0]?.content;
    const calls = (content?.parts ?? []).flatMap((part) => (part.functionCall === undefined ? [] : [part.functionCall]));
    if (content === undefined || calls.length === 0) return (content?.parts ?? []).map((part) => part.text ?? "").join("");
    contents.push(content);
    // Restored, validated, called, and answered as Gemini's functionResponse parts (the response always an object).
    const parts: Part[] = await Promise.all(
      calls.map((call) => toolset.call(call.name ?? "", call.args, { ...(call.id ? { id: call.id } : {}) })),
    );
    contents.push({ role: "user", parts });
  }
  throw new Error(`no answer after ${MAX_TURNS} turns`);
}

/** Asks an OpenAI model `question` through the Responses API, the tools declared strict where OpenAI's limits allow. */
export async function askOpenAI(openai: Pick<OpenAI, "responses">, client: CompositionClient, question: string): Promise<string> {
  const toolset = await toolsForModel(client, { profile: "openai-strict" });
  const input: ResponseInput = [{ role: "user", content: question }];
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const response = await openai.responses.create({ model: "gpt-5-mini", input, tools: toolset.tools });
    const calls = response.output.flatMap((item) => (item.type === "function_call" ? [item] : []));
    if (calls.length === 0) return response.output_text;
    input.push(...calls);
    // `null` for what strict mode made the model fill in is dropped where the tool's schema has no null.
    input.push(...(await Promise.all(calls.map((call) => toolset.call(call.name, JSON.parse(call.arguments), { id: call.call_id })))));
  }
  throw new Error(`no answer after ${MAX_TURNS} turns`);
}
