// npm run demo: the whole job on the example servers of examples/mcp.json, in a project of its own
// (.demo/, ignored by git, or the folder given as the first argument) so that the checkout's own
// schemas/ and generated/ stay as committed: export their schemas, generate typed clients, then start
// a domain server that composes them through those clients and call its tool.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "dist/bin/pmcp.js");
const project = resolve(process.argv[2] ?? join(root, ".demo"));
// The layout of the checkout, so that the examples' relative paths hold: examples/mcp.json, the servers
// and the domain server (which imports ../../generated/), and the checkout's node_modules.
rmSync(project, { recursive: true, force: true });
mkdirSync(join(project, "examples"), { recursive: true });
for (const part of ["mcp.json", "servers", "domain"])
  cpSync(join(root, "examples", part), join(project, "examples", part), { recursive: true });
symlinkSync(join(root, "node_modules"), join(project, "node_modules"), "dir");
// The memory server keeps its graph in a file; the demo starts from an empty one each run.
const env = { ...process.env, TMPDIR: mkdtempSync(join(tmpdir(), "pmcp-demo-")) };

function pmcp(...args) {
  console.log(`\n$ pmcp ${args.join(" ")}`);
  try {
    execFileSync(process.execPath, [cli, ...args], { cwd: project, stdio: "inherit", env });
  } catch {
    process.exit(1);
  }
}

console.log(`in ${project}`);
pmcp("schema", "export", "--config", "examples/mcp.json");
pmcp("generate");

console.log("\n$ start examples/domain/server.ts and call plan_restock({ threshold: 50 })");
// The domain server speaks both eras; the demo's client speaks 2026-07-28.
const client = new Client({ name: "demo", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
await client.connect(
  new StdioClientTransport({
    command: process.execPath,
    args: ["--import", "jiti/register", join(project, "examples/domain/server.ts")],
    cwd: project,
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
