// Example upstream server, run over stdio: `node --import jiti/register servers/inventory.ts`.
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { registerInventoryTools } from "./inventory-tools.js";

// Both protocol eras: a 2026-07-28 client and a 2025-era one each get a server of their own.
serveStdio(() => {
  const server = new McpServer({ name: "Inventory", version: "1.0.0" }, { instructions: "Stock levels by SKU." });
  registerInventoryTools(server);
  return server;
});
