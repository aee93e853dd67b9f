// Example upstream server: a warehouse inventory that declares output schemas and
// names its result types with pmcp:outputTypeName, as PMCP's TypedToolWithOutput does.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

const STOCK = {
  "SKU-1": { name: "Espresso beans 1 kg", quantity: 42, warehouse: "north" },
  "SKU-2": { name: "Milk frother", quantity: 0, warehouse: "south" },
  "SKU-3": { name: "Paper filters (100)", quantity: 310, warehouse: "north" },
};

function result(value) {
  return { content: [{ type: "text", text: JSON.stringify(value) }], structuredContent: value };
}

const server = new McpServer({ name: "Inventory", version: "1.0.0" }, { instructions: "Stock levels by SKU." });

server.registerTool(
  "get_stock",
  {
    title: "Get stock level",
    description: "Current stock of one SKU, and where it is kept.",
    inputSchema: { sku: z.string().describe("Stock keeping unit, e.g. SKU-1") },
    outputSchema: {
      sku: z.string(),
      name: z.string(),
      quantity: z.number().int().describe("Units on hand"),
      warehouse: z.enum(["north", "south"]),
      status: z.enum(["in_stock", "out_of_stock"]),
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false, "pmcp:outputTypeName": "StockLevel" },
  },
  async ({ sku }) => {
    const item = STOCK[sku];
    if (item === undefined) return { content: [{ type: "text", text: `unknown SKU ${sku}` }], isError: true };
    return result({ sku, ...item, status: item.quantity > 0 ? "in_stock" : "out_of_stock" });
  },
);

server.registerTool(
  "list_low_stock",
  {
    title: "List low stock",
    description: "SKUs at or below a threshold.",
    inputSchema: { threshold: z.number().int().min(0).default(10).describe("Report SKUs with at most this many units") },
    outputSchema: {
      items: z.array(z.object({ sku: z.string(), quantity: z.number().int() })),
      threshold: z.number().int(),
    },
    annotations: { readOnlyHint: true, "pmcp:outputTypeName": "LowStockReport" },
  },
  async ({ threshold }) =>
    result({
      threshold,
      items: Object.entries(STOCK)
        .filter(([, item]) => item.quantity <= threshold)
        .map(([sku, item]) => ({ sku, quantity: item.quantity })),
    }),
);

await server.connect(new StdioServerTransport());
