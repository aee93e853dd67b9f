// Example domain server: one tool that composes two upstream servers through the clients
// pmcp generated from their schemas. Every call below is typed and its result validated.

import { fileURLToPath } from "node:url";
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { CompositionClient } from "@pmcp-codegen/runtime";
import { z } from "zod";
import { InventoryClient, MemoryClient } from "../../generated/index.js";

// The same mcpServers file `pmcp schema export` read; commands resolve against its folder.
const upstream = await CompositionClient.fromConfigFile(fileURLToPath(new URL("../mcp.json", import.meta.url)));
const inventory = new InventoryClient(upstream);
const memory = new MemoryClient(upstream);

function createServer(): McpServer {
  const server = new McpServer({ name: "Restock Planner", version: "1.0.0" });
  server.registerTool(
    "plan_restock",
    {
      title: "Plan restock",
      description: "Finds SKUs at or below a threshold, remembers them in the knowledge graph, and returns the plan.",
      inputSchema: z.object({ threshold: z.number().int().min(0).default(10) }),
      outputSchema: z.object({
        threshold: z.number().int(),
        orders: z.array(z.object({ sku: z.string(), name: z.string(), warehouse: z.string(), order: z.number().int() })),
        remembered: z.number().int(),
      }),
    },
    async ({ threshold }) => {
      const report = await inventory.listLowStock({ threshold });
      const orders = await Promise.all(
        report.items.map(async (item) => {
          const stock = await inventory.getStock({ sku: item.sku });
          return { sku: stock.sku, name: stock.name, warehouse: stock.warehouse, order: threshold * 2 - stock.quantity };
        }),
      );
      const created = await memory.createEntities({
        entities: orders.map((order) => ({
          name: order.sku,
          entityType: "restock_order",
          observations: [`order ${order.order} units for ${order.warehouse}`],
        })),
      });
      const result = { threshold, orders, remembered: created.entities.length };
      return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
    },
  );

  return server;
}

// Both protocol eras on stdio; when the client goes away, so do the upstream servers.
serveStdio(createServer);
process.stdin.once("end", () => void upstream.close());
