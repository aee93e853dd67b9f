import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createListingServer, LISTED_TOOLS, PAGE_SIZE } from "../fixtures/listing-server.mjs";
import { createTypedServer } from "../fixtures/typed-server.mjs";
import { fixtureCommand, ROOT, runCli, runInProcess } from "../helpers/cli.js";
import { type HttpFixture, serveHttp } from "../helpers/http-server.js";

let dir: string;
let streamable: HttpFixture;
let sse: HttpFixture;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-export-"));
  streamable = await serveHttp(createTypedServer, { transport: "streamable-http" });
  sse = await serveHttp(() => createListingServer("ok"), { transport: "sse" });
});
afterAll(async () => {
  await streamable.close();
  await sse.close();
});

async function readJson(path: string) {
  return JSON.parse(await readFile(path, "utf8"));
}

describe("schema export over stdio, Streamable HTTP and SSE", () => {
  it("records every tool exactly as listed, following every page, in one bundle", async () => {
    const out = join(dir, "all.json");
    const result = await runCli(["schema", "export", "--stdio", fixtureCommand("listing-server.mjs"), "--id", "listing", "-o", out]);
    expect(result.stderr).not.toMatch(/at .*\.js:\d+/);
    expect(result.code).toBe(0);
    // Not a terminal: plain progress lines on stderr, the summary on stdout.
    expect(result.stderr).toMatch(/^listing: connecting\nlisting: 5 tools\n/);
    expect(result.stdout).toMatch(/^Wrote .*all\.json: 1 server, 5 tools \(3 warnings\)\n$/);
    const bundle = await readJson(out);
    const server = bundle.servers[0];
    expect(server.id).toBe("listing");
    // Five tools in pages of two: three tools/list calls, nothing lost or altered.
    expect(LISTED_TOOLS.length).toBeGreaterThan(2 * PAGE_SIZE);
    const byName = [...LISTED_TOOLS].sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(server.tools).toEqual(byName);
    const cls = server.tools.find((tool: { name: string }) => tool.name === "class");
    expect(cls.annotations["pmcp:outputTypeName"]).toBe("ClassList");
    expect(cls.annotations["vendor.example/flag"]).toBe(true);
    expect(cls.outputSchema.type).toBe("array");
    expect(cls.execution).toEqual({ taskSupport: "optional" });
    expect(server.tools.find((tool: { name: string }) => tool.name === "delete-record").annotations["pmcp:outputSchema"]).toBeDefined();
    expect(server.endpoint).toEqual({
      transport: "stdio",
      command: process.execPath,
      args: [expect.stringMatching(/listing-server\.mjs$/)],
    });
    // Broken schemas are kept verbatim and reported, naming server and tool.
    expect(result.stderr).toMatch(
      /warning: server "listing" tool "dangling" at \/outputSchema\/properties\/a\/\$ref: dangling \$ref "#\/\$defs\/Missing"/,
    );
    expect(result.stderr).toMatch(/tool "dangling" .*https:\/\/example\.com\/schemas\/b\.json.*not fetched/);
    expect(result.stderr).toMatch(/tool "odd_dialect" .*unknown JSON Schema dialect/);
  });

  it("exports Streamable HTTP and HTTP+SSE servers (auto fallback) with SDK-built and low-level servers", async () => {
    const out = join(dir, "http.json");
    const result = await runCli(["schema", "export", "--endpoint", streamable.url, "--endpoint", sse.url, "-o", out, "--json"]);
    expect(result.stderr.split("\n").filter((line) => line && !line.startsWith("warning: "))).toEqual([]);
    expect(result.code).toBe(0);
    const summary = JSON.parse(result.stdout);
    expect(summary.servers).toEqual([
      { id: "typed-fixture-server", transport: "streamable-http", tools: 2 },
      { id: "listing-fixture", transport: "sse", tools: LISTED_TOOLS.length },
    ]);
    expect(summary.warnings).toHaveLength(3);
    const bundle = await readJson(out);
    expect(bundle.servers.map((server: { id: string }) => server.id)).toEqual(["listing-fixture", "typed-fixture-server"]);
    const typed = bundle.servers[1];
    expect(typed.serverInfo).toMatchObject({ name: "Typed Fixture Server", version: "1.2.3" });
    expect(typed.instructions).toBe("Fixture for export tests.");
    expect(typed.endpoint).toEqual({ transport: "streamable-http", url: streamable.url });
    const stock = typed.tools.find((tool: { name: string }) => tool.name === "get_stock");
    expect(stock.annotations["pmcp:outputTypeName"]).toBe("StockLevel");
    expect(stock.outputSchema.properties.quantity.type).toBe("integer");
    expect(bundle.servers[0].endpoint).toEqual({ transport: "sse", url: sse.url });
  });

  it("is deterministic: exporting unchanged servers twice gives the same bytes, and --check agrees", async () => {
    const config = join(dir, "mcp.json");
    await writeFile(
      config,
      JSON.stringify({
        mcpServers: {
          listing: { command: process.execPath, args: [join(ROOT, "test/fixtures/listing-server.mjs")] },
          typed: { url: streamable.url },
          legacy: { type: "sse", url: sse.url },
        },
      }),
    );
    const out = join(dir, "det.json");
    expect((await runCli(["schema", "export", "--config", config, "-o", out, "--concurrency", "1"])).code).toBe(0);
    const first = await readFile(out, "utf8");
    expect(
      JSON.parse(first).servers.map((server: { id: string; endpoint: { transport: string } }) => [server.id, server.endpoint.transport]),
    ).toEqual([
      ["legacy", "sse"],
      ["listing", "stdio"],
      ["typed", "streamable-http"],
    ]);
    expect(first.endsWith("}\n")).toBe(true);
    expect(first).toContain('\n  "servers": [\n');
    expect((await runCli(["schema", "export", "--config", config, "-o", out])).code).toBe(0);
    expect(await readFile(out, "utf8")).toBe(first);

    const upToDate = await runCli(["schema", "export", "--config", config, "-o", out, "--check"]);
    expect(upToDate.code).toBe(0);
    expect(upToDate.stdout).toMatch(/up to date/);

    // Drift: one tool removed, one changed on disk; --check reports both and leaves the file alone.
    const edited = JSON.parse(first);
    const listing = edited.servers.find((server: { id: string }) => server.id === "listing");
    listing.tools = listing.tools.filter((tool: { name: string }) => tool.name !== "class");
    listing.tools.find((tool: { name: string }) => tool.name === "delete-record").description = "stale";
    const stale = `${JSON.stringify(edited, null, 2)}\n`;
    await writeFile(out, stale);
    const drift = await runCli(["schema", "export", "--config", config, "-o", out, "--check"]);
    expect(drift.code).toBe(1);
    // Drift is explained with the judgement of `pmcp schema diff`.
    expect(drift.stdout).toMatch(/^SAFE +listing\/class: tool added \[tool-added\]$/m);
    expect(drift.stdout).toMatch(/^SAFE +listing\/delete-record \/description: title or description changed/m);
    expect(drift.stderr).toMatch(/out of date/);
    expect(await readFile(out, "utf8")).toBe(stale);

    const only = await runCli(["schema", "export", "--config", config, "--server", "typed", "-o", join(dir, "only.json")]);
    expect(only.code).toBe(0);
    expect((await readJson(join(dir, "only.json"))).servers.map((server: { id: string }) => server.id)).toEqual(["typed"]);
  });

  it("writes bundles that satisfy schemas/bundle.schema.json", async () => {
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(await readJson(join(ROOT, "schemas/bundle.schema.json")));
    for (const file of ["all.json", "http.json", "det.json"]) {
      const bundle = await readJson(join(dir, file));
      expect(validate(bundle), JSON.stringify(validate.errors)).toBe(true);
    }
    expect(validate({ version: "1.0", servers: [{ id: "x", tools: [{ description: "no name" }] }] })).toBe(false);
  });

  it("writes PMCP foundation files that read back to the same bundle", async () => {
    const folder = join(dir, "foundation");
    const out = join(dir, "round.json");
    const command = fixtureCommand("listing-server.mjs");
    expect((await runCli(["schema", "export", "--stdio", command, "--format", "pmcp-foundation", "-o", folder])).code).toBe(0);
    expect((await runCli(["schema", "export", "--stdio", command, "-o", out])).code).toBe(0);
    const file = await readJson(join(folder, "listing-fixture.json"));
    expect(file).toMatchObject({
      $schema: "https://pmcp.run/schemas/mcp-foundation-v1.json",
      server_id: "listing-fixture",
      name: "Listing Fixture",
      version: "0.0.1",
      tier: "foundation",
    });
    expect(file).not.toHaveProperty("exported_at");
    expect(file.tools[0]).toHaveProperty("input_schema");
    expect(file.tools[0]).not.toHaveProperty("inputSchema");
    const validated = await runInProcess(["schema", "validate", "--schema", folder, "--json"]);
    expect(validated.code).toBe(0);
    expect(JSON.parse(validated.stdout)).toMatchObject({ valid: true, servers: 1, tools: LISTED_TOOLS.length });
    const { parseSchemaFile } = await import("../../src/bundle-files/read.js");
    const fromFoundation = parseSchemaFile("f", await readFile(join(folder, "listing-fixture.json"), "utf8")).bundle;
    const direct = parseSchemaFile("b", await readFile(out, "utf8")).bundle;
    expect(fromFoundation).toEqual(direct);
  });
});

describe("the example servers", () => {
  it("schemas/mcp-bundle.json is what examples/mcp.json exports today (the --check drift gate)", async () => {
    const result = await runCli(["schema", "export", "--config", "examples/mcp.json", "--check"], { env: { TMPDIR: dir } });
    expect(result.stderr.split("\n").filter((line) => line.startsWith("pmcp:"))).toEqual([]);
    expect(result.code).toBe(0);
  });
});
