import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createMcpHandler, InMemoryTransport, McpServer, type RegisteredTool } from "@modelcontextprotocol/server";
import { describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { defaultTypeName, ToolDefinitionError, type TypedToolExtra, typedTool } from "../../src/server/index.js";
import { CallResult, Listing } from "../helpers/raw-results.js";

describe("defaultTypeName", () => {
  it.each([
    ["get_stock", "GetStockResult"],
    ["count-items", "CountItemsResult"],
    ["listItems", "ListItemsResult"],
    ["files.read/v2", "FilesReadV2Result"],
  ])("%s → %s", (name, want) => {
    expect(defaultTypeName(name)).toBe(want);
  });
});

describe("typedTool types", () => {
  // The assertions here are checked by `tsc --noEmit` over this file; running it only registers tools.
  it("types the handler's input and checks its return against the output schema", () => {
    const server = new McpServer({ name: "types", version: "1.0.0" });
    const input = z.object({ sku: z.string(), warehouse: z.enum(["north", "south"]).default("north") });
    const output = z.object({ quantity: z.number() });
    const tool: RegisteredTool = typedTool(server, { name: "ok", description: "", input, output }, async (args, extra) => {
      expectTypeOf(args).toEqualTypeOf<{ sku: string; warehouse: "north" | "south" }>();
      expectTypeOf(extra).toEqualTypeOf<TypedToolExtra>();
      return { quantity: args.sku.length };
    });
    typedTool(server, { name: "shape", description: "", input: { n: z.number() }, output: { total: z.number() } }, ({ n }) => ({
      total: n,
    }));
    // @ts-expect-error quantity must be a number
    typedTool(server, { name: "wrong_type", description: "", input, output }, () => ({ quantity: "7" }));
    // @ts-expect-error quantity is required
    typedTool(server, { name: "missing_field", description: "", input, output }, async () => ({}));
    // @ts-expect-error the input has no field `count`
    typedTool(server, { name: "wrong_input", description: "", input, output }, ({ count }) => ({ quantity: count }));
    expect(tool.enabled).toBe(true);
  });
});

describe("typedTool with a non-object output (2026-07-28)", () => {
  it("publishes the schema as it is to a modern client and answers 7; a 2025-era client gets v2's { result } wrapper", async () => {
    const create = () => {
      const server = new McpServer({ name: "count", version: "1.0.0" });
      typedTool(server, { name: "count", description: "How many", input: {}, output: z.number().int() }, () => 7);
      return server;
    };
    // createMcpHandler serves both eras in process: its fetch function stands in for the network.
    const handler = createMcpHandler(create);
    const fetch = (url: string | URL, init?: RequestInit) => handler.fetch(new Request(url, init));
    const answers: unknown[] = [];
    for (const mode of [{ pin: "2026-07-28" }, "legacy"] as const) {
      const client = new Client({ name: "t", version: "1.0.0" }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL("http://in-process.test/mcp"), { fetch }));
      const { tools } = await client.request({ method: "tools/list", params: {} }, Listing);
      const result = CallResult.parse(await client.callTool({ name: "count", arguments: {} }));
      answers.push([tools[0]?.outputSchema, result.structuredContent]);
      await client.close();
    }
    expect(answers).toEqual([
      [expect.objectContaining({ type: "integer" }), 7],
      [expect.objectContaining({ type: "object", properties: { result: expect.objectContaining({ type: "integer" }) } }), { result: 7 }],
    ]);
    await handler.close();
  });
});

describe("typedTool refuses a schema with no JSON Schema form", () => {
  it("throws naming the tool and the field, and registers nothing, so the server's listing still works", async () => {
    const server = new McpServer({ name: "dates", version: "1.0.0" });
    typedTool(server, { name: "fine", description: "", input: {}, output: { n: z.number() } }, () => ({ n: 1 }));
    const failures = [
      () => typedTool(server, { name: "when", description: "", input: {}, output: { at: z.date() } }, () => ({ at: new Date() })),
      () => typedTool(server, { name: "big", description: "", input: { spec: z.object({ size: z.bigint() }) }, output: {} }, () => ({})),
    ].map((register) => {
      try {
        register();
      } catch (error) {
        return error instanceof ToolDefinitionError ? `${error.code} ${error.message.replace(/ \(.*\)$/, "")}` : String(error);
      }
      return "registered";
    });
    expect(failures).toEqual([
      'INVALID_SCHEMA tool "when": its output has no JSON Schema form at at',
      'INVALID_SCHEMA tool "big": its input has no JSON Schema form at spec.size',
    ]);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: "t", version: "1.0.0" });
    await client.connect(clientSide);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["fine"]);
    await client.close();
  });
});
