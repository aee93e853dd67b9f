// npm run demo: export the example servers of examples/mcp.json into schemas/mcp-bundle.json
// with the built CLI, then show what the bundle holds.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const bundlePath = "schemas/mcp-bundle.json";

console.log("$ pmcp schema export --config examples/mcp.json");
try {
  execFileSync(process.execPath, [cli, "schema", "export", "--config", "examples/mcp.json", "-o", bundlePath], { cwd: root, stdio: "inherit" });
} catch {
  process.exit(1);
}

const bundle = JSON.parse(readFileSync(new URL(`../${bundlePath}`, import.meta.url), "utf8"));
console.log(`\n${bundlePath}:`);
for (const server of bundle.servers) {
  console.log(`  ${server.id} (${server.serverInfo.name} ${server.serverInfo.version}, ${server.protocolVersion})`);
  for (const tool of server.tools) {
    const typeName = tool.annotations?.["pmcp:outputTypeName"];
    const output = tool.outputSchema ? `output schema${typeName ? ` → ${typeName}` : ""}` : "no output schema";
    console.log(`    ${tool.name.padEnd(20)} ${output}`);
  }
}
