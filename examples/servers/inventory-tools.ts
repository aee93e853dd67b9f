// The example upstream server's tools: a warehouse inventory whose tools are typed with
// pmcp-codegen/server, so they publish output schemas and pmcp:outputTypeName, as PMCP's
// TypedToolWithOutput does. The schemas are exported for the round-trip type test.
import type { McpServer } from "@modelcontextprotocol/server";
import { typedTool } from "pmcp-codegen/server";
import { z } from "zod";

const STOCK: Record<string, { name: string; quantity: number; warehouse: "north" | "south" }> = {
  "SKU-1": { name: "Espresso beans 1 kg", quantity: 42, warehouse: "north" },
  "SKU-2": { name: "Milk frother", quantity: 0, warehouse: "south" },
  "SKU-3": { name: "Paper filters (100)", quantity: 310, warehouse: "north" },
};

export const StockLevel = z.object({
  sku: z.string(),
  name: z.string(),
  quantity: z.number().int().describe("Units on hand"),
  warehouse: z.enum(["north", "south"]),
  status: z.enum(["in_stock", "out_of_stock"]),
});

export const LowStockReport = z.object({
  items: z.array(z.object({ sku: z.string(), quantity: z.number().int() })),
  threshold: z.number().int(),
});

export function registerInventoryTools(server: McpServer): void {
  typedTool(
    server,
    {
      name: "get_stock",
      title: "Get stock level",
      description: "Current stock of one SKU, and where it is kept.",
      input: { sku: z.string().describe("Stock keeping unit, e.g. SKU-1") },
      output: StockLevel,
      outputTypeName: "StockLevel",
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    ({ sku }) => {
      const item = STOCK[sku];
      if (item === undefined) throw new Error(`unknown SKU ${sku}`);
      return { sku, ...item, status: item.quantity > 0 ? ("in_stock" as const) : ("out_of_stock" as const) };
    },
  );

  typedTool(
    server,
    {
      name: "list_low_stock",
      title: "List low stock",
      description: "SKUs at or below a threshold.",
      input: { threshold: z.number().int().min(0).default(10).describe("Report SKUs with at most this many units") },
      output: LowStockReport,
      outputTypeName: "LowStockReport",
      annotations: { readOnlyHint: true },
    },
    ({ threshold }) => ({
      threshold,
      items: Object.entries(STOCK)
        .filter(([, item]) => item.quantity <= threshold)
        .map(([sku, item]) => ({ sku, quantity: item.quantity })),
    }),
  );
}
