import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-validate-"));
});

async function file(name: string, value: unknown): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, typeof value === "string" ? value : JSON.stringify(value));
  return path;
}

const queryTool = {
  name: "query",
  description: "Execute SQL query",
  inputSchema: { type: "object", properties: { sql: { type: "string" } }, required: ["sql"] },
  annotations: {
    readOnlyHint: true,
    "pmcp:outputSchema": {
      type: "object",
      properties: { columns: { type: "array", items: { type: "string" } }, row_count: { type: "integer" } },
    },
    "pmcp:outputTypeName": "QueryResult",
  },
};

describe("pmcp schema validate", () => {
  it("reads PMCP's documented bundle (legacy annotation form)", async () => {
    const path = await file("pmcp-bundle.json", { version: "1.0", servers: [{ id: "sqlite-explorer", tools: [queryTool] }] });
    const result = await runCli(["schema", "validate", "--schema", path, "--json"]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: true, servers: 1, tools: 1, files: [{ format: "bundle" }] });
  });

  it("reads a bundle saved with a UTF-8 byte order mark", async () => {
    const path = await file(
      "bom.json",
      `\uFEFF${JSON.stringify({ version: "1.0", servers: [{ id: "sqlite-explorer", tools: [queryTool] }] })}`,
    );
    const result = await runCli(["schema", "validate", "--schema", path, "--json"]);
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toMatchObject({ valid: true, servers: 1, tools: 1 });
  });

  it("reads snake_case keys in a bundle and a foundation file written by cargo pmcp", async () => {
    const { parseSchemaFile } = await import("../../src/bundle-files/read.js");
    const foundation = {
      $schema: "https://pmcp.run/schemas/mcp-foundation-v1.json",
      server_id: "sqlite-explorer",
      name: "SQLite Explorer",
      version: "1.0.0",
      endpoint: "https://my-server.pmcp.run/mcp",
      tier: "foundation",
      tools: [
        {
          name: "query",
          description: "Execute SQL query",
          input_schema: queryTool.inputSchema,
          output_schema: { type: "object" },
          annotations: { readOnlyHint: true, "pmcp:outputTypeName": "QueryResult" },
        },
      ],
      resources: [],
      prompts: [],
      exported_at: "2026-01-01T00:00:00Z",
    };
    const { format, bundle } = parseSchemaFile("sqlite-explorer.json", JSON.stringify(foundation));
    expect(format).toBe("pmcp-foundation");
    expect(bundle.servers[0]).toMatchObject({
      id: "sqlite-explorer",
      serverInfo: { name: "SQLite Explorer", version: "1.0.0" },
      endpoint: { transport: "streamable-http", url: "https://my-server.pmcp.run/mcp" },
      tools: [{ name: "query", inputSchema: queryTool.inputSchema, outputSchema: { type: "object" } }],
    });
    const snake = parseSchemaFile(
      "b.json",
      JSON.stringify({
        version: "1.0",
        servers: [{ id: "s", protocol_version: "2025-06-18", tools: [{ name: "t", input_schema: { type: "object" } }] }],
      }),
    );
    expect(snake.bundle.servers[0]).toMatchObject({ protocolVersion: "2025-06-18", tools: [{ inputSchema: { type: "object" } }] });
    const path = await file("sqlite-explorer.json", foundation);
    expect((await runCli(["schema", "validate", "--schema", path])).code).toBe(0);
  });

  it.each([
    ["not JSON", "{", /not valid JSON/],
    ["neither format", { tools: [] }, /neither a schema bundle/],
    [
      "a tool without a name",
      { version: "1.0", servers: [{ id: "inv", tools: [{ description: "x" }] }] },
      / at server "inv" tools\[0\] name: /,
    ],
    [
      "a wrong type in a named tool",
      { version: "1.0", servers: [{ id: "inv", tools: [{ name: "get", inputSchema: "yes" }] }] },
      / at server "inv" tool "get" inputSchema: /,
    ],
    ["an unknown version", { version: "2.0", servers: [] }, / at version: this reader understands bundle version 1\.x/],
    ["an unsafe server id", { version: "1.0", servers: [{ id: "../x", tools: [] }] }, / at server "\.\.\/x" id: /],
  ])("rejects %s with one line naming the file (exit 1)", async (_name, value, expected) => {
    const path = await file("broken.json", value);
    const result = await runCli(["schema", "validate", "--schema", path]);
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n")[0]).toMatch(/^pmcp: .*broken\.json\b/);
    expect(result.stderr).toMatch(expected);
  });

  it("a missing file is a usage error", async () => {
    const result = await runCli(["schema", "validate", "--schema", join(dir, "absent.json")]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/absent\.json: no such file or folder/);
  });

  it("warns about broken tool schemas without failing", async () => {
    const path = await file("warn.json", {
      version: "1.0",
      servers: [{ id: "s", tools: [{ name: "t", outputSchema: { $ref: "#/definitions/Nope" } }] }],
    });
    const result = await runCli(["schema", "validate", "--schema", path]);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/warning: server "s" tool "t" at \/outputSchema\/\$ref: dangling \$ref "#\/definitions\/Nope"/);
  });
});

describe("readBundle, the library's reader (pmcp-codegen and pmcp-codegen/model)", () => {
  it("reads what validate reads, and refuses what it refuses with a PmcpError naming the file and the place", async () => {
    const { PmcpError, readBundle } = await import("pmcp-codegen");
    expect((await import("pmcp-codegen/model")).readBundle).toBe(readBundle);
    const good = await file("library.json", { version: "1.0", servers: [{ id: "sqlite-explorer", tools: [queryTool] }] });
    const bundle = await readBundle(good);
    expect(bundle.servers.map((server) => [server.id, server.tools.map((tool) => tool.name)])).toEqual([["sqlite-explorer", ["query"]]]);
    const bad = await file("library-broken.json", {
      version: "1.0",
      servers: [{ id: "inv", tools: [{ name: "get", inputSchema: "yes" }] }],
    });
    const refused = await readBundle(bad).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(PmcpError);
    expect(refused).toMatchObject({
      code: "INVALID_INPUT",
      message: expect.stringMatching(/library-broken\.json at server "inv" tool "get" inputSchema: /),
    });
    const validated = await runCli(["schema", "validate", "--schema", bad]);
    expect(validated.stderr).toContain((refused as Error).message);
    await expect(readBundle(join(dir, "absent.json"))).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});
