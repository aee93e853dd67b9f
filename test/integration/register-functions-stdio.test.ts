import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES } from "../helpers/cli.js";

/**
 * registerFunctions on an McpServer built either way a user writes it: SDK v2 installs its own tool
 * handlers at construction when `capabilities.tools` is given, which registerFunctions must take over.
 */
describe.each(["declared", "plain"])("registerFunctions on an McpServer built with capabilities %s, over stdio", (build) => {
  let client: Client;
  let changes = 0;
  let changed: () => void = () => {};
  beforeAll(async () => {
    client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
    client.setNotificationHandler("notifications/tools/list_changed", () => {
      changes++;
      changed();
    });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [`${FIXTURES}functions-server.mjs`, build], stderr: "pipe" }),
    );
  });
  afterAll(async () => client.close());

  const names = async () => (await client.listTools()).tools.map(({ name }) => name);
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as CallToolResult;

  it("lists the manifest's first listing, calls its tools, and sends list_changed when enable_tools adds the rest", async () => {
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    expect(await names()).toEqual(["add", "enable_tools"]);
    expect(await call("add", { a: 2, b: 3 })).toEqual({ content: [{ type: "text", text: '{"sum":5}' }], structuredContent: { sum: 5 } });
    const notified = new Promise<void>((resolve) => {
      changed = resolve;
    });
    expect(await call("enable_tools", {})).toEqual({ content: [{ type: "text", text: "Added 1 tool to the tools list: shout" }] });
    await notified;
    expect(changes).toBe(1);
    expect(await names()).toEqual(["add", "shout", "enable_tools"]);
    expect(await call("shout", { text: "hi" })).toEqual({ content: [{ type: "text", text: "HI" }] });
  });
});
