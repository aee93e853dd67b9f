// Example upstream server, run over stdio: `node --import jiti/register servers/inventory.ts`.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { registerInventoryTools } from "./inventory-tools.js";

const server = new McpServer({ name: "Inventory", version: "1.0.0" }, { instructions: "Stock levels by SKU." });
registerInventoryTools(server);
await server.connect(new StdioServerTransport());
