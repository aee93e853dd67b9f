import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTypedServer } from "./fixtures/typed-server.mjs";
import { FIXTURES, fixtureCommand, runCli } from "./helpers/cli.js";
import { type HttpFixture, serveHttp } from "./helpers/http-server.js";

const fixtureCommandFor = (script: string) => [process.execPath, script].map((word) => JSON.stringify(word)).join(" ");
const EXISTING = '{\n  "version": "1.0",\n  "servers": []\n}\n';
const TOKEN = "s3cret-t0ken-value";
let dir: string;
let secured: HttpFixture;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-faults-"));
  secured = await serveHttp(createTypedServer, { transport: "streamable-http", bearer: TOKEN });
});
afterAll(() => secured.close());

/** Runs an export over an existing bundle, which must come through byte-identical. */
async function failingExport(name: string, sourceArgs: string[], timeoutMs = 3000) {
  const out = join(dir, `${name}.json`);
  await writeFile(out, EXISTING);
  const result = await runCli(["schema", "export", ...sourceArgs, "--timeout", String(timeoutMs), "-o", out]);
  expect(await readFile(out, "utf8")).toBe(EXISTING);
  expect((await readdir(dir)).filter((file) => file.endsWith(".tmp"))).toEqual([]);
  const errors = result.stderr.split("\n").filter((line) => line.startsWith("pmcp: "));
  return { ...result, errors };
}

describe("a failing server gives one clear line naming it, exit 1, and leaves the bundle alone", () => {
  it.each<[string, RegExp, number?]>([
    ["exit-during-list", /server "broken": the server closed the connection \(stderr: fatal: database connection lost\)/],
    ["silent", /server "broken": timed out after 3000 ms/],
    // Long enough for the fixture to have started and printed on a loaded machine.
    [
      "garbage",
      /server "broken": timed out after 10000 ms; on stdout it wrote no JSON-RPC, only "Server starting up\.\.\. listening!"$/,
      10_000,
    ],
    ["rpc-error", /server "broken": tools\/list failed with JSON-RPC error -32603: tool registry unavailable$/],
    ["cursor-loop", /server "broken": tools\/list repeated cursor "again" \(cursor loop\)/],
    ["invalid-tool", /server "broken": tools\/list returned an invalid tool "bad_schema": inputSchema: /],
    // 1,000 round trips can outlast 3 s on a loaded CI machine, so this case gets a minute.
    ["endless", /server "broken": tools\/list did not end after 1000 pages/, 60_000],
  ])("%s", async (mode, expected, timeoutMs = 3000) => {
    const result = await failingExport(mode, ["--stdio", fixtureCommand("listing-server.mjs", mode), "--id", "broken"], timeoutMs);
    expect(result.code).toBe(1);
    expect(result.errors[0]).toMatch(expected);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("a command that does not exist", async () => {
    const result = await failingExport("enoent", ["--stdio", "no-such-mcp-server --flag", "--id", "ghost"]);
    expect(result.code).toBe(1);
    expect(result.errors[0]).toBe('pmcp: server "ghost": cannot start "no-such-mcp-server": command not found');
  });

  it("a bundle that did not exist is not written, and not said to be left unchanged", async () => {
    const out = join(dir, "never.json");
    const result = await runCli(["schema", "export", "--stdio", "no-such-mcp-server", "--id", "ghost", "-o", out]);
    expect([result.code, result.stderr.split("\n").filter((line) => line.startsWith("pmcp: "))]).toEqual([
      1,
      ['pmcp: server "ghost": cannot start "no-such-mcp-server": command not found', `pmcp: ${out} not written`],
    ]);
    expect((await readdir(dir)).filter((file) => file.startsWith("never"))).toEqual([]);
  });

  it("a listing over the stdio message limit names the limit and the flag; --max-message-bytes raises it", async () => {
    const server = fixtureCommand("large-message-server.mjs", "--listing-mb", "11");
    const result = await failingExport("oversized", ["--stdio", server, "--id", "large"], 60_000);
    expect([result.code, result.errors]).toEqual([
      1,
      [
        'pmcp: server "large": the server wrote a message over the stdio limit of 10485760 bytes (10.0 MiB); raise it with maxMessageBytes (CLI: --max-message-bytes)',
        `pmcp: ${join(dir, "oversized.json")} left unchanged`,
      ],
    ]);
    const out = join(dir, "roomy.json");
    const roomy = await runCli(["schema", "export", "--stdio", server, "--id", "large", "--max-message-bytes", "12582912", "-o", out]);
    expect(roomy.code).toBe(0);
    const bundle = JSON.parse(await readFile(out, "utf8")) as { servers: { tools: { name: string }[] }[] };
    expect(bundle.servers[0]?.tools.map((tool) => tool.name)).toEqual(["big", "stats"]);
  });

  it.each([
    ["throws at start-up", 'console.error("starting");\nthrow new Error("database url is not set");\n', "Error: database url is not set"],
    ["has a syntax error", "const = 1;\n", "SyntaxError: Unexpected token '='"],
  ])("a Node server that %s is reported with its error line, not the stack", async (name, source, line) => {
    // Written here, not kept in test/fixtures: the linter would read the broken one.
    const script = join(dir, `${name.replaceAll(" ", "-")}.mjs`);
    await writeFile(script, source);
    const result = await failingExport(name.replaceAll(" ", "-"), ["--stdio", fixtureCommandFor(script), "--id", "crash"], 60_000);
    expect([result.code, result.errors[0]]).toEqual([1, `pmcp: server "crash": the server closed the connection (stderr: ${line})`]);
  });

  it("an unreachable HTTP server", async () => {
    const closed = await serveHttp(createTypedServer, { transport: "streamable-http" });
    await closed.close();
    const result = await failingExport("unreachable", ["--endpoint", closed.url]);
    expect(result.code).toBe(1);
    expect(result.errors[0]).toBe(`pmcp: server "${closed.url}": cannot reach the server: ECONNREFUSED`);
  });

  it("one failure among good servers fails the run unless --allow-partial", async () => {
    const args = ["--stdio", fixtureCommand("typed-server.mjs"), "--stdio", fixtureCommand("listing-server.mjs", "rpc-error")];
    const strict = await failingExport("partial", args);
    expect(strict.code).toBe(1);
    expect(strict.errors).toHaveLength(2);
    expect(strict.errors[1]).toMatch(/partial\.json left unchanged/);

    const out = join(dir, "partial.json");
    const partial = await runCli(["schema", "export", ...args, "--allow-partial", "-o", out, "--json"]);
    expect(partial.code).toBe(0);
    const summary = JSON.parse(partial.stdout);
    expect(summary.servers.map((server: { id: string }) => server.id)).toEqual(["typed-fixture-server"]);
    expect(summary.failures).toEqual([
      expect.stringMatching(/listing-server\.mjs rpc-error": tools\/list failed with JSON-RPC error -32603/),
    ]);
    expect(JSON.parse(await readFile(out, "utf8")).servers).toHaveLength(1);
  });
});

it("two servers with the same id is a usage error, even when the id comes from serverInfo.name", async () => {
  const result = await failingExport(
    "same-id",
    [
      "--stdio",
      fixtureCommand("listing-server.mjs"),
      "--stdio",
      fixtureCommand("listing-server.mjs", "ok"),
      // Both servers must start and answer before the ids are compared: a loaded machine needs time.
    ],
    30_000,
  );
  expect(result.code).toBe(2);
  expect(result.errors[0]).toMatch(/two servers have the id "listing-fixture" .*name them with --id or a --config file/);
});

describe("credentials", () => {
  it("HTTP 401 without the bearer header is one line and exit 1", async () => {
    const result = await failingExport("unauthorized", ["--endpoint", secured.url, "--id", "secured"]);
    expect(result.code).toBe(1);
    expect(result.errors[0]).toMatch(/^pmcp: server "secured": HTTP 401 Unauthorized/);
  });

  it("--header with ${TOKEN} authenticates, and the token never reaches the bundle", async () => {
    const out = join(dir, "authorized.json");
    const url = `${secured.url}?api_key=${TOKEN}&region=eu`;
    const result = await runCli(
      [
        "schema",
        "export",
        "--endpoint",
        url.replace("http://", `http://user:${TOKEN}@`),
        "--header",
        "Authorization: Bearer ${TOKEN}",
        "-o",
        out,
      ],
      { env: { TOKEN } },
    );
    expect(result.stderr).not.toMatch(/pmcp:/);
    expect(result.code).toBe(0);
    const text = await readFile(out, "utf8");
    expect(text).not.toContain(TOKEN);
    expect(JSON.parse(text).servers[0].endpoint.url).toBe(`${secured.url}?region=eu`);
    expect(secured.requests.some((request) => request.authorization === `Bearer ${TOKEN}`)).toBe(true);
  });

  it("a config file's headers and env take ${VAR} and are not recorded", async () => {
    const config = join(dir, "secure.json");
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          web: { type: "http", url: secured.url, headers: { Authorization: "Bearer ${TOKEN}" } },
          local: { command: process.execPath, args: [join(FIXTURES, "typed-server.mjs")], env: { API_KEY: "${TOKEN}" } },
        },
      }),
    );
    const out = join(dir, "config-secure.json");
    const result = await runCli(["schema", "export", "--config", config, "-o", out], { env: { TOKEN } });
    expect(result.code).toBe(0);
    const text = await readFile(out, "utf8");
    expect(text).not.toContain(TOKEN);
    expect(JSON.parse(text).servers.map((server: { id: string }) => server.id)).toEqual(["local", "web"]);
  });

  it("an unset variable is a usage error naming it", async () => {
    const result = await runCli(["schema", "export", "--endpoint", secured.url, "--header", "Authorization: Bearer ${PMCP_UNSET_VAR}"], {
      env: { PMCP_UNSET_VAR: undefined },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/--header Authorization: environment variable PMCP_UNSET_VAR is not set/);
  });
});

describe("a server named wrongly on the command line is a usage error naming the flag", () => {
  it.each([
    ["an unclosed double quote", ["--stdio", 'node "server.js'], 'pmcp: --stdio "node "server.js": the double quote is never closed'],
    ["an unclosed single quote", ["--stdio", "node 'a b"], `pmcp: --stdio "node 'a b": the single quote is never closed`],
    [
      "a bad % in the URL's credentials",
      ["--endpoint", "http://user:p%zz@127.0.0.1:9/mcp"],
      'pmcp: --endpoint: the user name or password in the URL has a "%" not followed by two hex digits (write "%" as %25)',
    ],
    [
      "a bad --max-message-bytes",
      ["--stdio", "node x.js", "--max-message-bytes", "0"],
      "pmcp: --max-message-bytes must be a whole number of bytes ≥ 1, got 0",
    ],
  ])("%s", async (_name, args, line) => {
    const result = await runCli(["schema", "export", ...args, "-o", join(dir, "never.json")]);
    const lines = result.stderr.split("\n").filter((text) => text.startsWith("pmcp: "));
    expect([result.code, lines]).toEqual([2, [line, "pmcp: run 'pmcp --help' for usage"]]);
  });
});
