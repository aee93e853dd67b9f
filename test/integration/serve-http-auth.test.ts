import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCli, serveOverHttp } from "../helpers/cli.js";
import { outputDir } from "../helpers/typescript.js";

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
      env: { ...process.env, PMCP_TEST_TOKEN: TOKEN },
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
      "pmcp: --host 0.0.0.0 is reached from other machines: give --auth-token-env or pmcp.config's serve.auth, so that only callers with a token are answered\npmcp: run 'pmcp --help' for usage\n",
    ]);
    const unset = await runCli(["serve", "inspect", "--http", "0", "--auth-token-env", "PMCP_NO_SUCH_VARIABLE", "--schema", bundle]);
    expect([unset.code, unset.stderr]).toEqual([
      2,
      "pmcp: --auth-token-env PMCP_NO_SUCH_VARIABLE: the environment variable is not set\npmcp: run 'pmcp --help' for usage\n",
    ]);
  });
});

/** A verifier as users write one: tokens of an authorization server, here a table. */
const VERIFIER_CONFIG = `import { OAuthError, OAuthErrorCode } from "@modelcontextprotocol/server";
import { defineConfig } from "pmcp-codegen/config";

const RESOURCE = "http://mcp.test/mcp";
const hour = () => Math.floor(Date.now() / 1000) + 3600;
const TOKENS: Record<string, { clientId: string; scopes: string[]; resource: string }> = {
  "token-a": { clientId: "client-a", scopes: ["pmcp:exec"], resource: RESOURCE },
  "token-elsewhere": { clientId: "client-a", scopes: ["pmcp:exec"], resource: "https://elsewhere.example/mcp" },
  "token-unscoped": { clientId: "client-a", scopes: [], resource: RESOURCE },
};

export default defineConfig({
  serve: {
    auth: {
      authorizationServers: ["https://auth.example.com"],
      scopes: ["pmcp:exec"],
      resource: RESOURCE,
      verifier: {
        async verifyAccessToken(token) {
          if (token === "token-broken") throw new Error("the token database is down");
          const known = TOKENS[token];
          if (known === undefined) throw new OAuthError(OAuthErrorCode.InvalidToken, "unknown token");
          return { token, ...known, resource: new URL(known.resource), expiresAt: hour() };
        },
      },
    },
  },
});
`;

describe("pmcp serve --http with pmcp.config's serve.auth: tokens of an authorization server, checked by the user's verifier", () => {
  let child: ChildProcessWithoutNullStreams;
  let url: string;
  let dir: string;
  let bundle: string;
  let stderr = "";
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
  const post = (token?: string) =>
    fetch(url, { method: "POST", headers: token === undefined ? headers : { ...headers, authorization: `Bearer ${token}` }, body });

  beforeAll(async () => {
    dir = await outputDir("serve-auth");
    bundle = join(dir, "bundle.json");
    await writeFile(bundle, JSON.stringify(BUNDLE));
    await writeFile(join(dir, "pmcp.config.ts"), VERIFIER_CONFIG);
    ({ child, url } = await serveOverHttp(["inspect", "--http", "0", "--schema", bundle], { cwd: dir }));
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
  });
  afterAll(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("publishes the authorization server and scopes in the resource's metadata, to pages of any origin", async () => {
    const metadata = await fetch(`${new URL(url).origin}/.well-known/oauth-protected-resource/mcp`, {
      headers: { origin: "https://inspector.example" },
    });
    expect([metadata.status, metadata.headers.get("access-control-allow-origin"), await metadata.json()]).toEqual([
      200,
      "*",
      {
        resource: "http://mcp.test/mcp",
        authorization_servers: ["https://auth.example.com"],
        scopes_supported: ["pmcp:exec"],
        bearer_methods_supported: ["header"],
        resource_name: "pmcp serve",
      },
    ]);
  });

  it("answers no token, an unknown one and one for another audience 401, one without the scope 403, each with the challenge", async () => {
    const answers = await Promise.all([post(), post("token-z"), post("token-elsewhere"), post("token-unscoped")]);
    const challenge = (error: string, description: string) =>
      `Bearer error="${error}", error_description="${description}", scope="pmcp:exec", resource_metadata="http://mcp.test/.well-known/oauth-protected-resource/mcp"`;
    expect(answers.map((answer) => [answer.status, answer.headers.get("www-authenticate")])).toEqual([
      [401, challenge("invalid_token", "Missing Authorization header")],
      [401, challenge("invalid_token", "unknown token")],
      [401, challenge("invalid_token", "Token was not issued for this resource")],
      [403, challenge("insufficient_scope", "Insufficient scope")],
    ]);
  });

  it("answers 500 when the verifier fails, and says why on stderr", async () => {
    const answer = await post("token-broken");
    expect([answer.status, await answer.json()]).toEqual([500, { error: "server_error", error_description: "Internal Server Error" }]);
    await vi.waitFor(() => expect(stderr).toContain("warning: the token verifier failed: the token database is down\n"), {
      timeout: 10_000,
    });
  });

  it("serves a client whose token the verifier accepts", async () => {
    const client = new Client({ name: "auth-test", version: "1.0.0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: "Bearer token-a" } } }),
    );
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["list_tools", "inspect_tool"]);
    } finally {
      await client.close();
    }
  });

  it("listens beyond loopback with it, and refuses it together with --auth-token-env in one line", async () => {
    const beyond = await serveOverHttp(["inspect", "--http", "0", "--host", "0.0.0.0", "--schema", bundle], { cwd: dir });
    beyond.child.kill("SIGKILL");
    expect(beyond.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/mcp$/);
    const both = await runCli(["serve", "inspect", "--http", "0", "--auth-token-env", "HOME", "--schema", bundle], { cwd: dir });
    expect([both.code, both.stderr]).toEqual([
      2,
      "pmcp: --auth-token-env and pmcp.config's serve.auth both say who may call: give one\npmcp: run 'pmcp --help' for usage\n",
    ]);
  });

  it("refuses a serve.auth without a verifier, naming the file and the key", async () => {
    const json = await outputDir("serve-auth-json");
    await writeFile(
      join(json, "pmcp.config.json"),
      JSON.stringify({ serve: { auth: { verifier: "jwt", authorizationServers: ["http://auth.example.com"] } } }),
    );
    const refused = await runCli(["serve", "inspect", "--http", "0", "--schema", bundle], { cwd: json });
    const file = join(json, "pmcp.config.json");
    expect([refused.code, refused.stderr]).toEqual([
      2,
      `pmcp: ${file} at serve.auth.verifier: expected an object with a verifyAccessToken(token) method\n` +
        `pmcp: ${file} at serve.auth.authorizationServers[0]: expected an issuer URL: https, or http on localhost\n` +
        "pmcp: run 'pmcp --help' for usage\n",
    ]);
  });
});
