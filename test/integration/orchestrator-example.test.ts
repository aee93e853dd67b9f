import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import type { GoogleGenAI } from "@google/genai";
import { CompositionClient } from "@pmcp-codegen/runtime";
import type OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askGemini, askOpenAI } from "../../examples/model-bridge/orchestrator.js";

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
/** The model's side: each request recorded, each answered with the next turn written in the provider's shape. */
const replay =
  <R>(answers: readonly unknown[], requests: R[]) =>
  async (request: R) => {
    requests.push(structuredClone(request));
    return answers[requests.length - 1];
  };

const WEATHER = { city: "Lisbon", temperature: 18.5, units: "metric", conditions: "clear sky" };

/**
 * The orchestrator guide's `toolsForModel` walk-through (docs/guides/orchestrator.md), run: the orchestrator example against a real stdio server
 * (the weather example's tool, its city an `anyOf` with null), the model's side played by answers
 * written in each provider's response shape. What matters is the second request: the model reads
 * the weather, so it has no reason to say it could not get it.
 */
describe("examples/model-bridge/orchestrator.ts", () => {
  let client: CompositionClient;
  let turns: { gemini: unknown[]; openai: unknown[] };
  beforeAll(async () => {
    client = new CompositionClient({ servers: { weather: { command: process.execPath, args: [fixture("model-bridge-server.mjs")] } } });
    turns = JSON.parse(await readFile(fixture("model-answers/weather-turns.json"), "utf8"));
  });
  afterAll(() => client.close());

  it("Gemini: the weather goes back as a functionResponse object, and the answer uses it", async () => {
    const requests: { contents: unknown[]; config: { tools: { functionDeclarations: { name: string; parameters?: unknown }[] }[] } }[] = [];
    const ai = { models: { generateContent: replay(turns.gemini, requests) } } as unknown as Pick<GoogleGenAI, "models">;
    expect(await askGemini(ai, client, "What is the weather in Lisbon?")).toBe("It is 18.5 °C with a clear sky in Lisbon.");
    const declared = requests[0]!.config.tools[0]!.functionDeclarations.find((tool) => tool.name === "get_weather");
    // The weather example's anyOf-with-null city, as Gemini's parameters take it.
    expect(declared?.parameters).toEqual({
      type: "object",
      properties: {
        city: { type: "string", nullable: true, default: null, title: "City" },
        coordinate: { type: "array", items: { type: "number" }, nullable: true, default: null, title: "Coordinate" },
        units: { type: "string", enum: ["metric", "imperial"] },
      },
    });
    expect(requests[1]!.contents.at(-1)).toEqual({
      role: "user",
      parts: [{ functionResponse: { id: "fc-w1", name: "get_weather", response: WEATHER } }],
    });
  });

  it("OpenAI: strict mode's null for the coordinate is dropped where the tool has none, and the answer uses the weather", async () => {
    const requests: { input: unknown[]; tools: { name: string; strict: boolean }[] }[] = [];
    const openai = { responses: { create: replay(turns.openai, requests) } } as unknown as Pick<OpenAI, "responses">;
    expect(await askOpenAI(openai, client, "What is the weather in Lisbon?")).toBe("It is 18.5 °C with a clear sky in Lisbon.");
    expect(requests[0]!.tools.map((tool) => [tool.name, tool.strict])).toEqual([
      ["get_weather", true],
      ["configure", true],
      ["snapshot", true],
      ["explode", true],
    ]);
    expect(requests[1]!.input.at(-1)).toEqual({ type: "function_call_output", call_id: "call_w1", output: JSON.stringify(WEATHER) });
  });
});
