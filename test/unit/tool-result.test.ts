import { readFile } from "node:fs/promises";
import { InMemoryTransport, LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/client";
import {
  CompositionClient,
  InvalidResponseError,
  OutputValidationError,
  observationPath,
  ParsedResult,
  parseObservationLog,
  ToolCallError,
  ToolResult,
} from "@pmcp-codegen/runtime";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { outputDir } from "../helpers/typescript.js";

/** Results no SDK-validated server would send as they are: a block type from the future, a JSON array, nothing. */
const RESULTS: Record<string, object> = {
  future: {
    content: [
      { type: "hologram", frames: 3 },
      { type: "text", text: '{"a":1,"b":"two"}' },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
    ],
    _meta: { trace: "t-1" },
  },
  array: { content: [{ type: "text", text: "two numbers" }], structuredContent: [1, 2] },
  empty: { content: [] },
  prose: {
    content: [
      { type: "text", text: "first" },
      { type: "text", text: "second" },
    ],
  },
  failing: {
    content: [
      { type: "text", text: "it broke" },
      { type: "image", data: "", mimeType: "image/png" },
      { type: "text", text: "twice" },
    ],
    isError: true,
  },
  counted: { content: [{ type: "text", text: '{"n":"not a number"}' }], structuredContent: { n: "not a number" } },
};

function client(observations?: string, onInferredMismatch?: (error: OutputValidationError) => void): CompositionClient {
  return new CompositionClient({
    servers: {},
    transports: {
      odd: () => {
        const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
        // Answers by hand: the SDK's Server checks results against its schema, and these break it on purpose.
        serverSide.onmessage = (message) => {
          if (!("id" in message) || !("method" in message)) return;
          // As a 2025-era server answers the client's probe for the modern era.
          if (message.method !== "initialize" && message.method !== "tools/call")
            return void serverSide.send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } });
          const result =
            message.method === "initialize"
              ? { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: { tools: {} }, serverInfo: { name: "odd", version: "1.0.0" } }
              : RESULTS[String((message.params as { name?: unknown } | undefined)?.name)];
          void serverSide.send({ jsonrpc: "2.0", id: message.id, result: result as never });
        };
        void serverSide.start();
        return clientSide;
      },
    },
    ...(observations === undefined ? {} : { observe: { dir: observations } }),
    ...(onInferredMismatch === undefined ? {} : { onInferredMismatch }),
  });
}

async function failure(run: () => unknown): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error("nothing was thrown");
}

describe("ToolResult: a result as it came", () => {
  it("keeps every block, one of a type newer than the SDK included, and reads text, audio, JSON and keys", async () => {
    const odd = client();
    try {
      const result = await odd.callToolForResult({ server: "odd", tool: "future" });
      expect(result).toBeInstanceOf(ToolResult);
      expect(result.content).toEqual([
        { type: "hologram", frames: 3 },
        { type: "text", text: '{"a":1,"b":"two"}' },
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      ]);
      expect(result.raw._meta).toEqual({ trace: "t-1" });
      expect(result.text).toBe('{"a":1,"b":"two"}');
      expect(result.audio).toEqual([{ type: "audio", data: "UklGRg==", mimeType: "audio/wav" }]);
      expect([result.images, result.resourceLinks, result.resources]).toEqual([[], [], []]);
      expect(result.json()).toEqual({ a: 1, b: "two" });
      expect([result.get("a"), result.get("missing"), result.has("b"), result.has("missing"), result.require("b")]).toEqual([
        1,
        undefined,
        true,
        false,
        "two",
      ]);
      expect(result.json(z.object({ a: z.number() }))).toEqual({ a: 1 });
      const mismatch = await failure(() => result.json(z.object({ a: z.string() })));
      expect(mismatch).toBeInstanceOf(OutputValidationError);
      expect((mismatch as OutputValidationError).issues.map((issue) => issue.path)).toEqual([["a"]]);
      const missing = await failure(() => result.require("missing"));
      expect(missing).toBeInstanceOf(InvalidResponseError);
      expect((missing as Error).message).toBe('odd/future: the result has no key "missing"');
    } finally {
      await odd.close();
    }
  });

  it("prefers structuredContent of any JSON type; key access on a non-object and JSON of nothing say so", async () => {
    const odd = client();
    try {
      const array = await odd.callToolForResult({ server: "odd", tool: "array" });
      expect([array.json(), array.structuredContent, array.text]).toEqual([[1, 2], [1, 2], "two numbers"]);
      expect(((await failure(() => array.get("0"))) as Error).message).toBe("odd/array: the result's JSON is not an object");
      const empty = await odd.callToolForResult({ server: "odd", tool: "empty" });
      expect([empty.text, empty.content]).toEqual(["", []]);
      expect(((await failure(() => empty.json())) as Error).message).toBe(
        "odd/empty: the result has neither structuredContent nor text content",
      );
      expect((await odd.callToolForResult({ server: "odd", tool: "prose" })).text).toBe("first\nsecond");
    } finally {
      await odd.close();
    }
  });

  it("isError is a ToolCallError with the text of all text blocks, for either kind of call", async () => {
    const odd = client();
    try {
      for (const call of [
        () => odd.callToolForResult({ server: "odd", tool: "failing" }),
        () => odd.callTool({ server: "odd", tool: "failing", parse: z.unknown() }),
        () => odd.callTool({ server: "odd", tool: "failing", parse: z.unknown() }, { withResult: true }),
      ]) {
        const error = await failure(call);
        expect(error).toBeInstanceOf(ToolCallError);
        expect((error as ToolCallError).text).toBe("it broke\ntwice");
      }
    } finally {
      await odd.close();
    }
  });

  it("withResult returns the parsed value beside the content; a lenient mismatch still passes the value on", async () => {
    const mismatches: OutputValidationError[] = [];
    const odd = client(undefined, (error) => mismatches.push(error));
    try {
      const strict = z.object({ n: z.string() });
      const whole = await odd.callTool({ server: "odd", tool: "counted", parse: strict }, { withResult: true });
      expect(whole).toBeInstanceOf(ParsedResult);
      expect([whole.value, whole.text, whole.content.length]).toEqual([{ n: "not a number" }, '{"n":"not a number"}', 1]);
      const lenient = await odd.callTool(
        { server: "odd", tool: "counted", parse: z.object({ n: z.number() }), lenient: true },
        { withResult: true },
      );
      expect(lenient.value).toEqual({ n: "not a number" });
      expect(mismatches.map((error) => error.toolName)).toEqual(["counted"]);
      expect(await odd.callTool({ server: "odd", tool: "counted", parse: strict })).toEqual({ n: "not a number" });
      // An inferred type never fails the call: prose has no value, reported, where a declared type would be INVALID_RESPONSE.
      const prose = { server: "odd", tool: "prose", parse: z.object({ n: z.number() }) };
      const unparsed = await odd.callTool({ ...prose, lenient: true }, { withResult: true });
      expect([unparsed.value, unparsed.text]).toEqual([undefined, "first\nsecond"]);
      expect(mismatches.map((error) => error.message)).toEqual([
        expect.stringMatching(/^odd\/counted: /),
        "odd/prose: result does not match the output schema: the result holds no JSON",
      ]);
      expect(((await failure(() => odd.callTool(prose))) as Error & { code: string }).code).toBe("INVALID_RESPONSE");
    } finally {
      await odd.close();
    }
  });

  it("are observed as JSON when they carry some and as their content types when not", async () => {
    const logs = await outputDir("tool-result-observations");
    const odd = client(logs);
    try {
      for (const tool of ["future", "array", "empty", "prose"]) await odd.callToolForResult({ server: "odd", tool });
      await failure(() => odd.callToolForResult({ server: "odd", tool: "failing" }));
    } finally {
      await odd.close();
    }
    const sample = async (tool: string) => {
      const { samples } = parseObservationLog(await readFile(observationPath(logs, "odd", tool), "utf8"), tool);
      return samples.map(({ at, ...rest }) => rest);
    };
    expect(await sample("future")).toEqual([{ value: { a: 1, b: "two" } }]);
    expect(await sample("array")).toEqual([{ value: [1, 2] }]);
    expect(await sample("empty")).toEqual([{ content: [] }]);
    expect(await sample("prose")).toEqual([{ content: ["text"] }]);
    // A failed call is not an observation.
    await expect(readFile(observationPath(logs, "odd", "failing"), "utf8")).rejects.toMatchObject({ code: "ENOENT" });
  });
});
