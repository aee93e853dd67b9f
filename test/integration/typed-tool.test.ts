import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTypedToolServer } from "../fixtures/typed-tool-server.js";
import { FIXTURES, ROOT } from "../helpers/cli.js";
import { type HttpFixture, serveHttp } from "../helpers/http-server.js";
import { CallResult, Listing } from "../helpers/raw-results.js";

let http: HttpFixture;
const clients = {
  stdio: new Client({ name: "typed-tool-test", version: "1.0.0" }),
  http: new Client({ name: "typed-tool-test", version: "1.0.0" }),
};

beforeAll(async () => {
  http = await serveHttp(createTypedToolServer, { transport: "streamable-http" });
  await Promise.all([
    clients.stdio.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "jiti/register", `${FIXTURES}typed-tool-server.ts`],
        cwd: ROOT,
        stderr: "inherit",
      }),
    ),
    clients.http.connect(new StreamableHTTPClientTransport(new URL(http.url))),
  ]);
});

afterAll(async () => {
  await Promise.all(Object.values(clients).map((client) => client.close()));
  await http?.close();
});

describe.each(["stdio", "http"] as const)("typedTool over %s", (transport) => {
  async function call(name: string, args: object = {}) {
    return CallResult.parse(await clients[transport].callTool({ name, arguments: { ...args } }));
  }

  it("lists outputSchema, pmcp:outputTypeName (default and explicit) and pmcp:outputSchema only with legacyAnnotations", async () => {
    const { tools } = await clients[transport].request({ method: "tools/list", params: {} }, Listing);
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const stock = byName.get("get_stock");
    expect(stock?.outputSchema).toMatchObject({ type: "object", required: ["sku", "quantity", "location"] });
    expect(stock?.annotations).toEqual({
      readOnlyHint: true,
      "pmcp:outputTypeName": "GetStockResult",
      "pmcp:outputSchema": stock?.outputSchema,
    });
    const count = byName.get("count-items");
    expect(count?.outputSchema).toMatchObject({ type: "object", properties: { count: { type: "integer" } } });
    expect(count?.annotations).toEqual({ "pmcp:outputTypeName": "ItemCount" });
    expect(byName.get("broken_stock")?.annotations).toEqual({ "pmcp:outputTypeName": "BrokenStockResult" });
  });

  it("answers with structuredContent and the same JSON as a text block", async () => {
    const stock = await call("get_stock", { sku: "A-1", warehouse: "south" });
    expect(stock.isError).toBeFalsy();
    expect(stock.structuredContent).toEqual({ sku: "A-1", quantity: 3, location: [1.5, -2] });
    expect(stock.content).toEqual([{ type: "text", text: JSON.stringify(stock.structuredContent) }]);
    const count = await call("count-items", { items: ["a", "b"] });
    expect(count.structuredContent).toEqual({ count: 2 });
    expect(count.content).toEqual([{ type: "text", text: '{"count":2}' }]);
  });

  it("turns a result that breaks the output schema into isError naming the field", async () => {
    const result = await call("broken_stock");
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toBeUndefined();
    expect(result.content).toEqual([
      {
        type: "text",
        text: 'output of tool "broken_stock" does not match its schema at quantity: Invalid input: expected number, received string',
      },
    ]);
  });

  it("turns a thrown error into isError with its message", async () => {
    const result = await call("explode");
    expect(result.isError).toBe(true);
    expect(result.content).toEqual([{ type: "text", text: "warehouse database is offline" }]);
  });
});
