// Progressive disclosure: what an agent's context pays for list_tools (names and first
// sentences) against each server's full tools/list, for two fixtures and the three reference servers.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { z } from "zod";
import { readSchemaFiles } from "../dist/bundle-files/read.js";
import { createInspectServer } from "../dist/inspect/inspect-server.js";

const require = createRequire(import.meta.url);
const cli = fileURLToPath(new URL("../dist/bin/pmcp.js", import.meta.url));
const fixture = (name) => fileURLToPath(new URL(`../test/fixtures/${name}`, import.meta.url));
/** Reference servers run with node from their package, never through npx (which may download). */
const main = (name) => join(dirname(require.resolve(`@modelcontextprotocol/${name}/package.json`)), "dist/index.js");

/** Bytes of a value as JSON, and the usual estimate of its tokens. */
function size(value) {
  const bytes = Buffer.byteLength(JSON.stringify(value), "utf8");
  return { bytes, tokens: Math.ceil(bytes / 4) };
}

function row(label, tools, listing, full) {
  const cell = ({ bytes, tokens }) => `${String(bytes).padStart(6)} B (${String(tokens).padStart(5)} tok)`;
  return `  ${label.padEnd(11)} ${String(tools).padStart(3)} tools  list_tools ${cell(listing)}  tools/list ${cell(full)}  ratio ${(listing.bytes / full.bytes).toFixed(2)}`;
}

/**
 * The inspect server answers every client on one event loop, so its slowest single request is how
 * long all other clients wait: measured against the size of one enum, where linear growth keeps the
 * time per value flat.
 */
async function worstRequestAgainstEnumSize() {
  const rows = [];
  for (const size of [5_000, 20_000, 80_000]) {
    const values = Array.from({ length: size }, (_, index) => `value-${index}`);
    const schema = { type: "object", properties: { v: { enum: values } } };
    const bundle = {
      version: "1.0",
      servers: [{ id: "wide", tools: [{ name: "pick", inputSchema: schema, outputSchema: schema }] }],
    };
    const client = new Client({ name: "bench-inspect-enum", version: "1.0.0" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createInspectServer(bundle).connect(serverSide);
    await client.connect(clientSide);
    try {
      let worst = 0;
      for (let round = 0; round < 3; round++) {
        for (const [name, args] of [
          ["list_tools", {}],
          ["inspect_tool", { tool_name: "wide/pick" }],
        ]) {
          const start = process.hrtime.bigint();
          const result = await client.callTool({ name, arguments: args });
          if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
          worst = Math.max(worst, Number(process.hrtime.bigint() - start) / 1e6);
        }
      }
      rows.push(`${size.toLocaleString("en")} values ${worst.toFixed(0)} ms (${((worst * 1000) / size).toFixed(2)} µs per value)`);
    } finally {
      await client.close();
    }
  }
  console.log(`inspect server, slowest single request against one enum's size: ${rows.join("; ")}`);
}

export async function benchInspect() {
  const work = mkdtempSync(join(tmpdir(), "pmcp-bench-inspect-"));
  try {
    const node = process.execPath;
    const mcpServers = {
      weather: { command: node, args: [fixture("weather-server.mjs")] },
      typed: { command: node, args: [fixture("typed-server.mjs")] },
      everything: { command: node, args: [main("server-everything")] },
      filesystem: { command: node, args: [main("server-filesystem"), work] },
      memory: { command: node, args: [main("server-memory")], env: { MEMORY_FILE_PATH: join(work, "memory.jsonl") } },
    };
    writeFileSync(join(work, "mcp.json"), JSON.stringify({ mcpServers }));
    const path = join(work, "bundle.json");
    execFileSync(node, [cli, "schema", "export", "--quiet", "--config", join(work, "mcp.json"), "-o", path], {
      stdio: ["ignore", "ignore", "inherit"],
    });
    const { bundle } = await readSchemaFiles([path]);

    const client = new Client({ name: "bench-inspect", version: "1.0.0" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createInspectServer(bundle).connect(serverSide);
    await client.connect(clientSide);
    try {
      console.log("inspect: list_tools result vs the server's full tools/list, as JSON (tokens ≈ bytes / 4)");
      const total = { tools: 0, listing: { bytes: 0, tokens: 0 }, full: { bytes: 0, tokens: 0 } };
      for (const server of bundle.servers) {
        const result = await client.callTool({ name: "list_tools", arguments: { server: server.id } });
        const listing = size(result.structuredContent);
        const full = size({ tools: server.tools });
        console.log(row(server.id, server.tools.length, listing, full));
        total.tools += server.tools.length;
        for (const key of ["bytes", "tokens"]) {
          total.listing[key] += listing[key];
          total.full[key] += full[key];
        }
      }
      console.log(row("total", total.tools, total.listing, total.full));
      // The agent also pays for the inspect server's own two tool definitions, once per session;
      // read raw, since Client.listTools() drops annotation keys it does not know.
      const own = size(await client.request({ method: "tools/list", params: {} }, z.looseObject({ tools: z.array(z.looseObject({})) })));
      console.log(`  pmcp-inspect's own tools/list: ${own.bytes} B (${own.tokens} tok), once per session`);
    } finally {
      await client.close();
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  await worstRequestAgainstEnumSize();
}

if (import.meta.url === `file://${process.argv[1]}`) await benchInspect();
