// npm run demo: the whole job on the example servers of examples/mcp.json:
// export their schemas, generate typed clients, then start a domain server that composes
// them through those clients and call its tool.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "dist/cli/main.js");
// The memory server keeps its graph in a file; the demo starts from an empty one each run.
const env = { ...process.env, TMPDIR: mkdtempSync(join(tmpdir(), "pmcp-demo-")) };

function pmcp(...args) {
  console.log(`\n$ pmcp ${args.join(" ")}`);
  try {
    execFileSync(process.execPath, [cli, ...args], { cwd: root, stdio: "inherit", env });
  } catch {
    process.exit(1);
  }
}

pmcp("schema", "export", "--config", "examples/mcp.json");
pmcp("generate");

console.log("\n$ start examples/domain/server.ts and call plan_restock({ threshold: 50 })");
// The domain server speaks both eras; the demo's client speaks 2026-07-28.
const client = new Client({ name: "demo", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "jiti/register", join(root, "examples/domain/server.ts")],
    cwd: root,
    env,
    stderr: "inherit",
  }),
);
const result = await client.callTool({ name: "plan_restock", arguments: { threshold: 50 } });
await client.close();
if (result.isError) {
  console.error(`plan_restock failed: ${JSON.stringify(result.content)}`);
  process.exit(1);
}
console.log(JSON.stringify(result.structuredContent, null, 2));
