// The catalogue's functions served as MCP tools from their manifest, over stdio:
// `node --import jiti/register examples/tools/server.ts`. The manifest is written by
// `pmcp tools from-source examples/tools/catalog.ts -o examples/tools/catalog.tools.json`.
// The first tools/list holds the `@phase basic` tools and enable_tools, which lists the rest;
// the supplier's API allows 2 calls in 3 s, shared by every tool tagged `@rateLimit supplier`
// and, through the one `rateLimits` object, by every session.
import { readFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { parseToolManifest, registerFunctions } from "pmcp-codegen/server";
import * as catalog from "./catalog.js";

const path = new URL("catalog.tools.json", import.meta.url);
const manifest = parseToolManifest(path.pathname, readFileSync(path, "utf8"));
const rateLimits = { supplier: { calls: 2, perMs: 3_000 } };
serveStdio(() => {
  const server = new McpServer({ name: "catalog", version: "1.0.0" });
  // `TOOLS_LISTING=all` lists every tool at once, for `pmcp schema export`, which never calls enable_tools.
  registerFunctions(server, catalog, manifest, { listing: process.env.TOOLS_LISTING === "all" ? "all" : "basic", rateLimits });
  return server;
});
