import { execFile, spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { CompositionClient, type StrayOutput } from "@pmcp-codegen/runtime";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { CLI, FIXTURES, fixtureCommand, ROOT, runCli } from "../helpers/cli.js";
import { once } from "../helpers/once.js";
import { outputDir } from "../helpers/typescript.js";

// Real servers print banners to stdout (time-mcp: `Starting Time MCP server...`); the MCP Inspector and
// the SDKs read past them, and so must every path of pmcp. The fixture prints two lines before its first
// message and one on every tool call, between the call and its answer.

const BANNER = join(FIXTURES, "banner-server.mjs");
const SERVER = fixtureCommand("banner-server.mjs");
const RUNTIME = join(ROOT, "packages/runtime/dist/index.js");
const WARNING = 'server "banner": skipped output on stdout that is not JSON-RPC: "Starting Banner MCP server..."';
const execFileAsync = promisify(execFile);

/** The lines of stderr that are warnings. */
const warnings = (stderr: string) => stderr.split("\n").filter((line) => line.startsWith("warning: "));

let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await outputDir("stdout-banner");
  bundle = join(dir, "bundle.json");
});

describe("a server that prints to stdout besides its messages is used, with one warning", () => {
  it("pmcp schema export writes the bundle, exits 0 and warns once, quoting the first line and counting the rest", async () => {
    const result = await runCli(["schema", "export", "--stdio", SERVER, "--id", "banner", "-o", bundle]);
    expect([result.code, warnings(result.stderr)]).toEqual([0, [`warning: ${WARNING} and 1 more line`]]);
    expect(result.stdout).toBe(`Wrote ${bundle}: 1 server, 1 tool (1 warning)\n`);
    const written = JSON.parse(await readFile(bundle, "utf8")) as { servers: { id: string; tools: { name: string }[] }[] };
    expect(written.servers.map((server) => [server.id, server.tools.map((tool) => tool.name)])).toEqual([["banner", ["get_stock"]]]);
    const json = await runCli(["schema", "export", "--stdio", SERVER, "--id", "banner", "-o", join(dir, "json.json"), "--json"]);
    expect((JSON.parse(json.stdout) as { warnings: string[] }).warnings).toEqual([`${WARNING} and 1 more line`]);
  });

  it("CompositionClient calls it, and tells onStrayOutput once per server, when the server first answers after the lines", async () => {
    const told: [string, StrayOutput][] = [];
    const client = new CompositionClient({
      servers: { banner: { command: process.execPath, args: [BANNER] } },
      onStrayOutput: (serverId, stray) => told.push([serverId, stray]),
    });
    const call = { server: "banner", tool: "get_stock", parse: z.object({ sku: z.string(), quantity: z.number() }) };
    expect(await client.callTool({ ...call, args: { sku: "A1" } })).toEqual({ sku: "A1", quantity: 2 });
    // The two banner lines, told at the answer to initialize: not at close, which may be hours later.
    const banner = ["banner", { firstLine: "Starting Banner MCP server...", lines: 2 }];
    expect(told).toEqual([banner]);
    expect(await client.callTool({ ...call, args: { sku: "B22" } })).toEqual({ sku: "B22", quantity: 3 });
    await client.close();
    expect(told).toEqual([banner]);
  });

  it("by default, CompositionClient warns on stderr as Node prints process warnings", async () => {
    const script = `
      import { CompositionClient, z } from ${JSON.stringify(RUNTIME)};
      const client = new CompositionClient({ servers: { banner: { command: process.execPath, args: [${JSON.stringify(BANNER)}] } } });
      const stock = await client.callTool({ server: "banner", tool: "get_stock", args: { sku: "A1" }, parse: z.object({ quantity: z.number() }) });
      await client.close();
      console.log(stock.quantity);
    `;
    const { stdout, stderr } = await execFileAsync(process.execPath, ["--input-type=module", "-e", script], { timeout: 120_000 });
    expect(stdout).toBe("2\n");
    const printed = stderr.split("\n").filter((line) => line.includes("Warning"));
    expect(printed.map((line) => line.replace(/^\(node:\d+\) /, ""))).toEqual([`PmcpStrayOutputWarning: ${WARNING} and 1 more line`]);
  });

  it("pmcp exec runs a program that calls it", async () => {
    const program = join(dir, "program.ts");
    await writeFile(program, 'return await banner.getStock({ sku: "A1" });');
    const run = await runCli(["exec", program, "--stdio", SERVER, "--id", "banner"]);
    expect([run.code, JSON.parse(run.stdout), warnings(run.stderr)]).toEqual([
      0,
      { sku: "A1", quantity: 2 },
      [`warning: ${WARNING} and 1 more line`],
    ]);
  });

  it("pmcp exec typed by a bundle starts the server by the program's call alone, and warns as well", async () => {
    const program = join(dir, "typed-program.ts");
    await writeFile(program, 'return await banner.getStock({ sku: "A1" });');
    const typed = await runCli(["exec", program, "--stdio", SERVER, "--id", "banner", "--schema", bundle]);
    expect([typed.code, JSON.parse(typed.stdout), warnings(typed.stderr)]).toEqual([
      0,
      { sku: "A1", quantity: 2 },
      [`warning: ${WARNING} and 1 more line`],
    ]);
  });

  it("pmcp serve exec executes a program that calls it, and warns while it runs", async () => {
    let stderr = "";
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "exec", "--stdio", SERVER, "--id", "banner", "--schema", bundle],
      cwd: ROOT,
      stderr: "pipe",
    });
    transport.stderr?.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
    });
    const agent = new Client({ name: "banner-test", version: "1.0.0" });
    await agent.connect(transport);
    const code =
      'const a = await banner.getStock({ sku: "A1" });\nconst b = await banner.getStock({ sku: "B22" });\nreturn a.quantity + b.quantity;';
    const answer = await agent.callTool({ name: "execute_program", arguments: { code } }, undefined, { timeout: 120_000 });
    expect([answer.isError, (answer.structuredContent as { result: unknown }).result]).toEqual([undefined, 5]);
    // Told as the server started, while the session is still open; its lines between calls are not told again.
    await vi.waitFor(() => expect(warnings(stderr)).toEqual([`warning: ${WARNING} and 1 more line`]), { timeout: 60_000, interval: 50 });
    await agent.close();
    expect(warnings(stderr)).toEqual([`warning: ${WARNING} and 1 more line`]);
    // Starting the program checker takes most of it: as long as serve-exec.test.ts gives its own start.
  }, 120_000);

  it("pmcp schema discover calls its tools and records them", async () => {
    const samples = join(dir, "samples.json");
    await writeFile(samples, JSON.stringify({ get_stock: [{ sku: "A1" }, { sku: "B22" }] }));
    const observations = join(dir, "observations");
    const args = ["schema", "discover", "--stdio", SERVER, "--id", "banner", "--samples", samples, "--observations", observations];
    const result = await runCli(args);
    expect([result.code, warnings(result.stderr)]).toEqual([0, [`warning: ${WARNING} and 1 more line`]]);
    expect(result.stdout.split("\n")[0]).toBe("called banner/get_stock: 2 calls, 2 recorded");
  });

  it("pmcp dev starts, types it and warns once, as it connects", async () => {
    const project = await outputDir("stdout-banner-dev");
    const child = spawn(process.execPath, [CLI, "dev", "--stdio", SERVER, "--id", "banner"], {
      cwd: project,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
    });
    const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
    await vi.waitFor(() => expect(out).toMatch(/^updated /m), { timeout: 60_000, interval: 50 });
    expect(await readFile(join(project, "generated/banner.ts"), "utf8")).toContain("getStock(");
    expect(err).toMatch(/^banner: connected \(1 tool, stdio\)$/m);
    expect(warnings(err)).toEqual([`warning: ${WARNING} and 1 more line`]);
    child.kill("SIGINT");
    expect(await exited).toBe(0);
    expect(warnings(err)).toEqual([`warning: ${WARNING} and 1 more line`]);
  });
});

describe("what stays an error on a server's stdout", () => {
  /** One export of both servers that break their stdout, over a lowered message limit: each case reads its own line. */
  const broken = once(async () => {
    const config = join(dir, "broken-stdout.json");
    const entry = (mode: string) => ({ command: process.execPath, args: [BANNER, mode] });
    await writeFile(config, JSON.stringify({ mcpServers: { glued: entry("glued"), long: entry("long") } }));
    const result = await runCli(["schema", "export", "--config", config, "--max-message-bytes", "65536", "-o", join(dir, "broken.json")]);
    expect(result.code).toBe(1);
    return (id: string) => result.stderr.split("\n").filter((line) => line.startsWith(`pmcp: server "${id}": `));
  });

  it("a message that a print without a newline broke: the line is quoted", async () => {
    expect((await broken())("glued")).toEqual([
      expect.stringMatching(
        /^pmcp: server "glued": a JSON-RPC message on stdout was broken by other output: "Loading inventory\.\.\.\{\\"/,
      ),
    ]);
  });

  it("a line past the message limit", async () => {
    expect((await broken())("long")).toEqual([
      'pmcp: server "long": the server wrote a message over the stdio limit of 65536 bytes (0.1 MiB); raise it with maxMessageBytes (CLI: --max-message-bytes)',
    ]);
  });

  // No MCP server at all: a shell prints the banner and never answers. It prints within milliseconds, a
  // Node server would take seconds on a loaded machine, so 3 s is time enough to have printed it.
  it("a program that wrote nothing but other lines when its time ran out is named with the first of them", async () => {
    const script = "printf 'Starting Banner MCP server...\\nListening on stdio\\n'; exec sleep 600";
    const result = await runCli([
      "schema",
      "export",
      "--stdio",
      `sh -c "${script}"`,
      "--id",
      "banner",
      "--timeout",
      "3000",
      "-o",
      join(dir, "chatter.json"),
    ]);
    expect([result.code, result.stderr.split("\n").filter((line) => line.startsWith("pmcp: "))[0]]).toEqual([
      1,
      'pmcp: server "banner": timed out after 3000 ms; on stdout it wrote no JSON-RPC, only "Starting Banner MCP server..." and 1 more line',
    ]);
    const client = new CompositionClient({ servers: { banner: { command: "sh", args: ["-c", script] } }, timeoutMs: 3000 });
    const call = client.callTool({ server: "banner", tool: "get_stock", args: { sku: "A1" }, parse: z.unknown() });
    await expect(call).rejects.toThrow(
      'timed out after 3000 ms; on stdout it wrote no JSON-RPC, only "Starting Banner MCP server..." and 1 more line',
    );
    await client.close();
  });
});
