import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli, serveOverHttp } from "./helpers/cli.js";

const TOKEN = "s3cret-token-for-the-test";
const BUNDLE = { version: "1.0", servers: [{ id: "inv", tools: [{ name: "get_stock", inputSchema: { type: "object" } }] }] };

describe("pmcp serve --http --auth-token-env: a protected resource", () => {
  let child: ChildProcessWithoutNullStreams;
  let url: string;
  let bundle: string;

  beforeAll(async () => {
    bundle = join(await mkdtemp(join(tmpdir(), "pmcp-auth-")), "bundle.json");
    await writeFile(bundle, JSON.stringify(BUNDLE));
    ({ child, url } = await serveOverHttp(["inspect", "--http", "0", "--auth-token-env", "PMCP_TEST_TOKEN", "--schema", bundle], {
      ...process.env,
      PMCP_TEST_TOKEN: TOKEN,
    }));
  });
  afterAll(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("answers a request without the token, or with another, 401 with the challenge naming its metadata", async () => {
    const metadata = `${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`;
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const none = await fetch(url, { method: "POST", headers, body });
    const wrong = await fetch(url, { method: "POST", headers: { ...headers, authorization: "Bearer not-it" }, body });
    expect([none.status, wrong.status]).toEqual([401, 401]);
    for (const answer of [none, wrong]) {
      expect(answer.headers.get("www-authenticate")).toMatch(/^Bearer /);
      expect(answer.headers.get("www-authenticate")).toContain(`resource_metadata="${metadata}"`);
    }
    expect(wrong.headers.get("www-authenticate")).toContain('error="invalid_token"');
    const document = await fetch(metadata);
    expect([document.status, await document.json()]).toEqual([
      200,
      { resource: url, bearer_methods_supported: ["header"], resource_name: "pmcp serve" },
    ]);
  });

  it("serves a client that sends the token", async () => {
    const client = new Client({ name: "auth-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${TOKEN}` } } }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["list_tools", "inspect_tool"]);
    } finally {
      await client.close();
    }
  });

  it("refuses an address beyond loopback without a token, and a token's variable that is not set, in one line each", async () => {
    const beyond = await runCli(["serve", "inspect", "--http", "0", "--host", "0.0.0.0", "--schema", bundle]);
    expect([beyond.code, beyond.stderr]).toEqual([
      2,
      "pmcp: --host 0.0.0.0 is reached from other machines: give --auth-token-env, so that only callers with the token are answered\npmcp: run 'pmcp --help' for usage\n",
    ]);
    const unset = await runCli(["serve", "inspect", "--http", "0", "--auth-token-env", "PMCP_NO_SUCH_VARIABLE", "--schema", bundle]);
    expect([unset.code, unset.stderr]).toEqual([
      2,
      "pmcp: --auth-token-env PMCP_NO_SUCH_VARIABLE: the environment variable is not set\npmcp: run 'pmcp --help' for usage\n",
    ]);
  });
});
