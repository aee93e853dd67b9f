// The basic-first listing: the bytes of the first tools/list of examples/tools served by
// registerFunctions with `listing: "basic"`, against the full listing (`"all"`), as JSON.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { createJiti } from "jiti";
import { z } from "zod";
import { toolTagsOf } from "../dist/bundle/tool-tags.js";
import { count } from "../dist/count.js";
import { parseToolManifest, registerFunctions } from "../dist/server/index.js";
import { report } from "./lib.mjs";

const jiti = createJiti(import.meta.url);
const MANIFEST = fileURLToPath(new URL("../examples/tools/catalog.tools.json", import.meta.url));

/** The first tools/list of the module served with `listing`, read raw: Client.listTools() drops keys it does not know. */
async function firstListing(module, manifest, listing) {
  // Budgets play no part in a listing; each bucket a tool names only has to exist.
  const buckets = manifest.tools.flatMap((tool) => toolTagsOf(tool._meta).rateLimit ?? []);
  const rateLimits = Object.fromEntries(buckets.map((bucket) => [bucket, { calls: 1, perMs: 1 }]));
  const server = new McpServer({ name: "catalog", version: "1.0.0" });
  registerFunctions(server, module, manifest, { listing, rateLimits });
  const client = new Client({ name: "bench-listing", version: "1.0.0" });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  try {
    const { tools } = await client.request({ method: "tools/list", params: {} }, z.looseObject({ tools: z.array(z.looseObject({})) }));
    return { tools: tools.length, bytes: Buffer.byteLength(JSON.stringify({ tools }), "utf8") };
  } finally {
    await client.close();
  }
}

export async function benchListing() {
  const module = await jiti.import("../examples/tools/catalog.ts");
  const manifest = parseToolManifest(MANIFEST, readFileSync(MANIFEST, "utf8"));
  const basic = await firstListing(module, manifest, "basic");
  const all = await firstListing(module, manifest, "all");
  report(
    `examples/tools' first tools/list with listing "basic" (${count(basic.tools, "tool")}, enable_tools included)`,
    basic.bytes,
    all.bytes,
    `listing "all" (${count(all.tools, "tool")})`,
    0.3,
    "B",
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchListing();
