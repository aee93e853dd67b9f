import type { Bundle } from "../../src/bundle/types.js";

/**
 * A bundle whose tools change for the model in every way normalize has: two servers with a tool
 * `search` (renamed), an integer enum (strings for Gemini), free-form values and an object without
 * properties (JSON text), optional properties (required and nullable under strict modes), an array
 * root (wrapped), an enum past OpenAI strict's limits (non-strict), and one tool that keeps its shape.
 */
export const MODEL_BUNDLE: Bundle = {
  version: "1.0",
  servers: [
    {
      id: "shop",
      tools: [
        {
          name: "search",
          inputSchema: {
            type: "object",
            properties: { level: { type: "integer", enum: [1, 2, 3] }, data: { description: "Anything" }, meta: { type: "object" } },
            required: ["level"],
          },
          outputSchema: { type: "object", properties: { any: {} } },
        },
        { name: "tail", inputSchema: { type: "array", items: { type: "string" } } },
        {
          name: "pick",
          inputSchema: {
            type: "object",
            properties: { code: { type: "string", enum: Array.from({ length: 1001 }, (_, index) => `c${index}`) } },
            required: ["code"],
          },
        },
      ],
    },
    {
      id: "docs",
      tools: [
        { name: "search", inputSchema: { type: "object", properties: { q: { type: "string" } } } },
        { name: "get", inputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"] } },
      ],
    },
  ],
};
