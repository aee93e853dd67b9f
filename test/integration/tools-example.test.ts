import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { ROOT } from "../helpers/cli.js";

/**
 * The tools example whole, over stdio with the SDK: examples/tools/server.ts serves the catalogue's functions
 * and classes with `listing: "basic"` and the `supplier` bucket (2 calls in 3 s).
 */
const eras = [
  ["a 2025-era client", "legacy"],
  ["a 2026-07-28 client", { pin: "2026-07-28" }],
] as const;

const Listing = z.object({ tools: z.array(z.looseObject({ name: z.string() })) });

describe.each(eras)("examples/tools served over stdio to %s", (_era, mode) => {
  let client: Client;
  let changes = 0;
  beforeAll(async () => {
    client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode } });
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      changes++;
    });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ["--import", "jiti/register", join(ROOT, "examples/tools/server.ts")],
        cwd: ROOT,
        stderr: "pipe",
      }),
    );
    // The modern era sends list changes on a subscription only.
    if (mode !== "legacy") await client.listen({ toolsListChanged: true });
  });
  afterAll(async () => client.close());

  // Raw: Client.listTools() would drop the pmcp: annotation and _meta keys it does not know.
  const listing = async () => (await client.request({ method: "tools/list" }, Listing)).tools;
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;
  /** The result without the server's era-specific `_meta` keys (2026-07-28 adds its serverInfo to each result). */
  const own = (result: CallToolResult): CallToolResult => {
    const meta = Object.fromEntries(Object.entries(result._meta ?? {}).filter(([key]) => key.startsWith("pmcp/")));
    const { _meta, ...rest } = result;
    return Object.keys(meta).length === 0 ? rest : { ...rest, _meta: meta };
  };

  it("first lists the basic tools, most popular first, with their tags, and enable_tools", async () => {
    const tools = await listing();
    expect(tools.map((tool) => [tool.name, tool._meta])).toEqual([
      ["search_products", { "pmcp/category": "catalogue", "pmcp/phase": "basic", "pmcp/popularity": 10 }],
      ["get_stock_level", { "pmcp/category": "stock", "pmcp/phase": "basic", "pmcp/popularity": 9 }],
      ["list_products", { "pmcp/category": "catalogue", "pmcp/phase": "basic", "pmcp/popularity": 7 }],
      ["enable_tools", { "pmcp/unlisted": 6 }],
    ]);
    expect(tools.at(-1)).toEqual({
      name: "enable_tools",
      description:
        "Lists more of this server's tools, all of them or one category's; the tools list then includes them. " +
        'Not listed yet: 3 tools in "orders", 2 tools in "reports", 1 tool in "catalogue".',
      inputSchema: {
        type: "object",
        properties: {
          category: {
            type: "string",
            enum: ["orders", "reports", "catalogue"],
            description: "Only the tools of this category; without it, all.",
          },
        },
        additionalProperties: false,
      },
      _meta: { "pmcp/unlisted": 6 },
    });
  });

  it("adds one category's tools when asked, and says the list changed", async () => {
    const before = changes;
    expect(own(await call("enable_tools", { category: "orders" }))).toEqual({
      content: [{ type: "text", text: "Added 3 tools to the tools list: place_restock_order, quote_restock, supplier_of" }],
    });
    await expect.poll(() => changes - before, { timeout: 10_000 }).toBe(1);
    expect((await listing()).map((tool) => tool.name)).toEqual([
      "search_products",
      "get_stock_level",
      "list_products",
      "place_restock_order",
      "quote_restock",
      "supplier_of",
      "enable_tools",
    ]);
  });

  it("calls positional parameters with the function's defaults", async () => {
    expect((await call("search_products", { query: "POT" })).structuredContent).toMatchObject({
      products: [{ sku: "POT-010", name: "Terracotta pot" }],
    });
    expect((await call("quote_restock", { sku: "HAM-001" })).structuredContent).toEqual({
      sku: "HAM-001",
      quantity: 10,
      supplier: "Forge & Sons",
      totalCents: 12500,
      leadDays: 5,
    });
  });

  // The bucket does not depend on the era: its 3 s wait is paid once.
  it.runIf(mode === "legacy")("refuses a call past the supplier bucket without running it, and runs one again after the wait", async () => {
    // The bucket is shared by both tools tagged `@rateLimit supplier`; the last test spent one call of it.
    const window = 3_000;
    const start = performance.now();
    const placed = await call("place_restock_order", {
      sku: "POT-010",
      lines: [{ warehouse: "north", quantity: 4 }],
      deliveryWindow: ["2026-12-01T00:00:00Z", "2026-12-03T00:00:00Z"],
      priority: "normal",
    });
    expect(placed.isError, JSON.stringify(placed)).toBeFalsy();
    const refused = own(await call("quote_restock", { sku: "POT-010", quantity: 3 }));
    const wait = refused._meta?.["pmcp/retryAfterMs"];
    expect(typeof wait === "number" && Number.isInteger(wait) && wait > 0 && wait <= window, JSON.stringify(refused)).toBe(true);
    expect(refused).toEqual({
      content: [{ type: "text", text: `Rate limited: bucket "supplier" allows 2 calls per 3000 ms; retry in ${wait} ms` }],
      isError: true,
      _meta: { "pmcp/retryAfterMs": wait },
    });
    // Past the window of the two calls spent, whatever the refusal's figure.
    await sleep(Math.max(0, window - (performance.now() - start)) + 100);
    expect(own(await call("quote_restock", { sku: "POT-010", quantity: 3 }))).toEqual({
      content: [{ type: "text", text: '{"sku":"POT-010","quantity":3,"supplier":"Clayworks","totalCents":2400,"leadDays":12}' }],
      structuredContent: { sku: "POT-010", quantity: 3, supplier: "Clayworks", totalCents: 2400, leadDays: 12 },
    });
  });

  it("refuses arguments outside the constraints from JSDoc, naming each", async () => {
    expect(own(await call("search_products", { query: "", limit: 51 }))).toEqual({
      content: [
        {
          type: "text",
          text: "Invalid arguments for tool search_products: query: must NOT have fewer than 1 characters; limit: must be <= 50",
        },
      ],
      isError: true,
    });
  });
});
