// Peers for the export benchmark: a plain SDK script that connects to each server and calls
// listTools(), either one after another (what people write today) or all at once (the
// lower bound for any exporter on this machine). Usage: node sdk-list.mjs <sequential|concurrent> <json [[command, ...args], ...]>
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const [mode, json] = process.argv.slice(2);
const commands = JSON.parse(json);

async function list([command, ...args]) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, stderr: "ignore" }));
  const { tools } = await client.listTools();
  if (tools.length === 0) throw new Error(`${command} listed no tools`);
  await client.close();
}

if (mode === "concurrent") await Promise.all(commands.map(list));
else for (const command of commands) await list(command);
