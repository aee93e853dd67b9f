import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTypedServer } from "../fixtures/typed-server.mjs";
import { FIXTURES, fixtureCommand, runCli, runInProcess } from "../helpers/cli.js";
import { type HttpFixture, serveHttp } from "../helpers/http-server.js";
import { once } from "../helpers/once.js";

const EXISTING = '{\n  "version": "1.0",\n  "servers": []\n}\n';
const TOKEN = "s3cret-t0ken-value";
let dir: string;
let secured: HttpFixture;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-faults-"));
  secured = await serveHttp(createTypedServer, { transport: "streamable-http", bearer: TOKEN });
  // Both at once, for the cases that read them below; the longer takes up to its minute.
  await Promise.all([failing(), timingOut()]);
}, 180_000);
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

const listing = (mode: string) => ({ command: process.execPath, args: [join(FIXTURES, "listing-server.mjs"), mode] });

/**
 * One export of failing servers (a --config file of `servers`) over an existing bundle: exit 1, no stack,
 * and one line for each server besides the bundle's, each case below reading its own.
 */
function failingRun(name: string, servers: () => Promise<Record<string, object>>, timeoutMs: number) {
  return once(async () => {
    const entries = await servers();
    const config = join(dir, `${name}-servers.json`);
    await writeFile(config, JSON.stringify({ mcpServers: entries }));
    const result = await failingExport(name, ["--config", config], timeoutMs);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.errors).toHaveLength(Object.keys(entries).length + 1);
    expect(result.errors.at(-1)).toBe(`pmcp: ${join(dir, `${name}.json`)} left unchanged`);
    return (id: string) => result.errors.filter((line) => line.startsWith(`pmcp: server "${id}": `));
  });
}

// Those that time out, given long enough for the fixture to have started and printed on a loaded machine.
const timingOut = failingRun("timing-out", async () => ({ silent: listing("silent"), garbage: listing("garbage") }), 10_000);

const NODE_CRASHES = [
  ["throws at start-up", 'console.error("starting");\nthrow new Error("database url is not set");\n', "Error: database url is not set"],
  ["has a syntax error", "const = 1;\n", "SyntaxError: Unexpected token '='"],
] as const;

// Those that fail on their own; 1,000 round trips (endless) can outlast seconds on a loaded CI machine, so a minute.
const failing = failingRun(
  "failing",
  async () => {
    const crashes: Record<string, object> = {};
    for (const [name, source] of NODE_CRASHES) {
      // Written here, not kept in test/fixtures: the linter would read the broken one.
      const script = join(dir, `${name.replaceAll(" ", "-")}.mjs`);
      await writeFile(script, source);
      crashes[name.replaceAll(" ", "-")] = { command: process.execPath, args: [script] };
    }
    return {
      ...Object.fromEntries(
        ["exit-during-list", "rpc-error", "cursor-loop", "invalid-tool", "endless"].map((mode) => [mode, listing(mode)]),
      ),
      ghost: { command: "no-such-mcp-server", args: ["--flag"] },
      large: { command: process.execPath, args: [join(FIXTURES, "large-message-server.mjs"), "--listing-mb", "11"] },
      secured: { url: secured.url },
      ...crashes,
    };
  },
  60_000,
);

describe("a failing server gives one clear line naming it, exit 1, and leaves the bundle alone", () => {
  it.each<[string, RegExp]>([
    ["exit-during-list", /server "exit-during-list": the server closed the connection \(stderr: fatal: database connection lost\)/],
    ["rpc-error", /server "rpc-error": tools\/list failed with JSON-RPC error -32603: tool registry unavailable$/],
    ["cursor-loop", /server "cursor-loop": tools\/list repeated cursor "again" \(cursor loop\)/],
    ["invalid-tool", /server "invalid-tool": tools\/list returned an invalid tool "bad_schema": inputSchema: /],
    ["endless", /server "endless": tools\/list did not end after 1000 pages/],
  ])("%s", async (mode, expected) => {
    expect((await failing())(mode)).toEqual([expect.stringMatching(expected)]);
  });

  it.each<[string, RegExp]>([
    ["silent", /server "silent": timed out after 10000 ms/],
    ["garbage", /server "garbage": timed out after 10000 ms; on stdout it wrote no JSON-RPC, only "Server starting up\.\.\. listening!"$/],
  ])("%s", async (mode, expected) => {
    expect((await timingOut())(mode)).toEqual([expect.stringMatching(expected)]);
  });

  it("a command that does not exist", async () => {
    expect((await failing())("ghost")).toEqual(['pmcp: server "ghost": cannot start "no-such-mcp-server": command not found']);
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
    expect((await failing())("large")).toEqual([
      'pmcp: server "large": the server wrote a message over the stdio limit of 10485760 bytes (10.0 MiB); raise it with maxMessageBytes (CLI: --max-message-bytes)',
    ]);
    const out = join(dir, "roomy.json");
    const roomy = await runCli(["schema", "export", "--stdio", server, "--id", "large", "--max-message-bytes", "12582912", "-o", out]);
    expect(roomy.code).toBe(0);
    const bundle = JSON.parse(await readFile(out, "utf8")) as { servers: { tools: { name: string }[] }[] };
    expect(bundle.servers[0]?.tools.map((tool) => tool.name)).toEqual(["big", "stats"]);
  });

  it.each(NODE_CRASHES)("a Node server that %s is reported with its error line, not the stack", async (name, _source, line) => {
    const id = name.replaceAll(" ", "-");
    expect((await failing())(id)).toEqual([`pmcp: server "${id}": the server closed the connection (stderr: ${line})`]);
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
    expect((await failing())("secured")).toEqual([expect.stringMatching(/^pmcp: server "secured": HTTP 401 Unauthorized/)]);
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
    expect(process.env.PMCP_UNSET_VAR).toBeUndefined();
    const result = await runInProcess([
      "schema",
      "export",
      "--endpoint",
      secured.url,
      "--header",
      "Authorization: Bearer ${PMCP_UNSET_VAR}",
    ]);
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
    const result = await runInProcess(["schema", "export", ...args, "-o", join(dir, "never.json")]);
    const lines = result.stderr.split("\n").filter((text) => text.startsWith("pmcp: "));
    expect([result.code, lines]).toEqual([2, [line, "pmcp: run 'pmcp --help' for usage"]]);
  });
});
