import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { request } from "node:http";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import type { Bundle, InferredTool } from "../../src/bundle/types.js";
import { readSchemaFiles } from "../../src/bundle-files/read.js";
import { formatInspection } from "../../src/commands/inspect.js";
import { inspectTool, NO_OUTPUT_SCHEMA_NOTE, type ToolInspection } from "../../src/inspect/describe-tool.js";
import { listTools } from "../../src/inspect/list-tools.js";
import { CLI, FIXTURES, ROOT, runCli, serveOverHttp } from "../helpers/cli.js";
import { outputDir } from "../helpers/typescript.js";

let dir: string;
/** The weather fixture's bundle and the inventory example's, read together as `--schema` takes them. */
let schemas: string[];
let bundle: Bundle;

beforeAll(async () => {
  dir = await outputDir("inspect");
  await writeFile(
    join(dir, "mcp.json"),
    JSON.stringify({ mcpServers: { weather: { command: process.execPath, args: [join(FIXTURES, "weather-server.mjs")] } } }),
  );
  schemas = [join(dir, "weather.json"), join(dir, "inventory.json")];
  const exports = await Promise.all([
    runCli(["schema", "export", "--quiet", "--config", join(dir, "mcp.json"), "-o", schemas[0]!]),
    runCli(["schema", "export", "--quiet", "--config", "examples/mcp.json", "--server", "inventory", "-o", schemas[1]!]),
  ]);
  for (const result of exports) expect(result.code, result.stderr).toBe(0);
  bundle = (await readSchemaFiles(schemas)).bundle;
});

function inspection(name: string): ToolInspection {
  const outcome = inspectTool(bundle, name);
  if (!outcome.found) throw new Error(outcome.message);
  return outcome.inspection;
}

describe("pmcp inspect", () => {
  it("shows a declared output schema and the generated result type", async () => {
    const result = await runCli(["inspect", "weather/get_version", "--schema", ...schemas]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("weather/get_version\nDeclares its output, and breaks it: build is sometimes a number.\n");
    expect(result.stdout).toContain('"inputSchema": {\n  "type": "object"');
    expect(result.stdout).toContain('"outputSchema": {\n  "type": "object",\n  "properties": {\n    "version": {');
    expect(result.stdout).toContain(
      "Result type (source declared, quality high):\ntype GetVersionResult = {\n  version: string;\n  build: string;\n};\n",
    );
    expect(result.stdout).not.toContain("Note:");
  });

  it('says "outputSchema": null with the note when the server declares none', async () => {
    const text = await runCli(["inspect", "weather/get_weather", "--schema", ...schemas]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`"outputSchema": null\nNote: ${NO_OUTPUT_SCHEMA_NOTE}\n`);
    expect(text.stdout).toContain("Result type (source unknown, quality none):\ntype GetWeatherResult = rt.ToolResult;");

    const json = await runCli(["inspect", "weather/get_weather", "--json", "--schema", ...schemas]);
    expect(json.code, json.stderr).toBe(0);
    expect(json.stdout).toContain('"outputSchema": null,');
    expect(JSON.parse(json.stdout)).toEqual({
      name: "weather/get_weather",
      description: "Current weather of a city.",
      inputSchema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
      outputSchema: null,
      note: NO_OUTPUT_SCHEMA_NOTE,
      resultType: "type GetWeatherResult = rt.ToolResult;",
      source: "unknown",
      quality: "none",
    });
  });

  it("--json prints the inspection object, the result type named by pmcp:outputTypeName", async () => {
    const result = await runCli(["inspect", "inventory/get_stock", "--json", "--schema", ...schemas]);
    expect(result.code, result.stderr).toBe(0);
    const printed = JSON.parse(result.stdout) as ToolInspection;
    expect(printed).toEqual(inspection("inventory/get_stock"));
    expect(printed).toMatchObject({
      name: "inventory/get_stock",
      source: "declared",
      quality: "high",
      outputSchema: { type: "object", required: ["sku", "name", "quantity", "warehouse", "status"] },
    });
    expect(printed.resultType).toMatch(/^type StockLevel = \{\n {2}sku: string;\n/);
    expect(printed.resultType).toContain('warehouse: "north" | "south";');
    expect(printed).not.toHaveProperty("note");
  });

  it("accepts a bare tool name that exactly one server has; any other bare name is a usage error", async () => {
    const bare = await runCli(["inspect", "get_stock", "--json", "--schema", ...schemas]);
    expect(bare.code, bare.stderr).toBe(0);
    expect(JSON.parse(bare.stdout)).toMatchObject({ name: "inventory/get_stock" });
    const unknown = await runCli(["inspect", "no_such_tool", "--schema", ...schemas]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split("\n")[0]).toBe('pmcp: "no_such_tool": name the tool as server/tool (no server has a tool of that name)');
  });

  it("exits 1 with the exact not-found line for an unknown tool or server", async () => {
    for (const name of ["weather/no_such_tool", "nowhere/get_stock"]) {
      const result = await runCli(["inspect", name, "--schema", ...schemas]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr).toBe(`pmcp: [Tool not found] '${name}' is not available\n`);
    }
  });

  it("exits 2 on an unknown flag and on a missing bundle, with one line and no stack", async () => {
    const bogus = await runCli(["inspect", "weather/get_weather", "--bogus", "--schema", ...schemas]);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr.split("\n")[0]).toMatch(/^pmcp: Unknown argument: --bogus$/);
    const missing = await runCli(["inspect", "weather/get_weather"], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe("pmcp: schemas/mcp-bundle.json: no such file or folder\npmcp: run 'pmcp --help' for usage\n");
  });
});

describe("inspection", () => {
  it("keeps an inferred schema apart from the declared outputSchema, which stays null", () => {
    const block: InferredTool = {
      tool: "get_weather",
      schema: { type: "object", properties: { city: { type: "string" }, temperature: { type: ["number", "string"] } }, required: ["city"] },
      observations: 12,
      seen: 12,
      firstSeen: "2026-11-22T10:00:00.000Z",
      lastSeen: "2026-11-22T10:00:00.000Z",
      redacted: false,
      consistency: 0.9,
      quality: "medium",
      fields: [],
    };
    const withInferred: Bundle = {
      ...bundle,
      servers: bundle.servers.map((server) => (server.id === "weather" ? { ...server, inferred: [block] } : server)),
    };
    const outcome = inspectTool(withInferred, "weather/get_weather");
    expect(outcome.found && outcome.inspection).toMatchObject({
      outputSchema: null,
      note: NO_OUTPUT_SCHEMA_NOTE,
      inferredOutputSchema: { schema: block.schema, observations: 12, quality: "medium" },
      source: "inferred",
      quality: "medium",
    });
    expect(outcome.found && outcome.inspection.resultType.split("\n").slice(0, 3)).toEqual([
      "// The method returns rt.ParsedResult<GetWeatherResult>: the result as sent (.text, .get(), .json(), …) with this type in .value.",
      "type GetWeatherResult = {",
      "  city: string;",
    ]);
    expect(outcome.found && formatInspection(outcome.inspection)).toContain(
      "Inferred from 12 observed results (quality medium), not declared by the server:\n{",
    );
  });

  it("says a tool observed answering in prose returns rt.ToolResult, with the content types seen", () => {
    const block: InferredTool = {
      tool: "set_units",
      schema: {},
      observations: 0,
      seen: 3,
      firstSeen: "2026-11-22T10:00:00.000Z",
      lastSeen: "2026-11-22T10:00:00.000Z",
      redacted: false,
      consistency: 0,
      quality: "none",
      fields: [],
      content: { text: 3 },
    };
    const withProse: Bundle = {
      ...bundle,
      servers: bundle.servers.map((server) => (server.id === "weather" ? { ...server, inferred: [block] } : server)),
    };
    const outcome = inspectTool(withProse, "weather/set_units");
    if (!outcome.found) throw new Error(outcome.message);
    expect(outcome.inspection).toEqual({
      name: "weather/set_units",
      description: "Not annotated: changes state.",
      inputSchema: { type: "object", properties: { units: { type: "string" } } },
      outputSchema: null,
      note: NO_OUTPUT_SCHEMA_NOTE,
      observedContent: { text: 3 },
      resultType: "type SetUnitsResult = rt.ToolResult;",
      source: "unknown",
      quality: "none",
    });
    expect(formatInspection(outcome.inspection).split("\n\n").slice(-2)).toEqual([
      "Observed answering without JSON, in results holding: text (3)",
      "Result type (source unknown, quality none):\ntype SetUnitsResult = rt.ToolResult;",
    ]);
  });

  it("prints a server's control characters escaped, so a description cannot drive the terminal", () => {
    const text = formatInspection({
      ...inspection("weather/get_weather"),
      description: "Sunny\u001b[2J\u001b]0;owned\u0007 today\nsecond line",
    });
    expect(text).toContain("Sunny\\u001b[2J\\u001b]0;owned\\u0007 today\nsecond line");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that none is left
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f]/);
  });

  it("lists tools filtered by every query word, in any case, and by server", () => {
    expect(listTools(bundle).map((tool) => tool.name)).toHaveLength(8);
    expect(listTools(bundle, { query: "CITY weather" })).toEqual([{ name: "weather/get_weather", summary: "Current weather of a city." }]);
    expect(listTools(bundle, { query: "weather nothing-like-this" })).toEqual([]);
    expect(listTools(bundle, { server: "inventory" }).map((tool) => tool.name)).toEqual([
      "inventory/get_stock",
      "inventory/list_low_stock",
    ]);
    expect(listTools(bundle, { server: "nowhere" })).toEqual([]);
  });
});

const ListToolsResult = z.object({
  tools: z.array(z.object({ name: z.string(), summary: z.string(), modelName: z.string().optional() })),
  total: z.number(),
});

/** The protocol's view of a call result: structured content, or the error text. */
async function call(client: Client, name: string, args: Record<string, unknown>) {
  return z
    .object({
      content: z.array(z.looseObject({ type: z.string(), text: z.string() })),
      structuredContent: z.unknown().optional(),
      isError: z.boolean().optional(),
    })
    .parse(await client.callTool({ name, arguments: args }));
}

describe("pmcp serve inspect over stdio", () => {
  const client = new Client({ name: "inspect-test", version: "1.0.0" });

  beforeAll(async () => {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "inspect", "--schema", ...schemas],
        cwd: ROOT,
        stderr: "inherit",
      }),
    );
  });
  afterAll(() => client.close());

  it("lists list_tools and inspect_tool, both read-only with an output schema", async () => {
    // A tools list that never changes, and no list_changed notification promised.
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["list_tools", "inspect_tool"]);
    for (const tool of tools) {
      expect(tool.outputSchema).toMatchObject({ type: "object" });
      expect(tool.annotations?.readOnlyHint).toBe(true);
      expect(tool.description).toMatch(/Call this (first|before)/);
    }
    expect(tools[1]?.inputSchema).toMatchObject({ properties: { tool_name: { type: "string" } }, required: ["tool_name"] });
  });

  it("list_tools gives names and first sentences only, filtered by query and by server", async () => {
    const all = await call(client, "list_tools", {});
    const listing = ListToolsResult.parse(all.structuredContent);
    expect(listing.total).toBe(8);
    expect(listing.tools).toHaveLength(8);
    expect(listing.tools).toContainEqual({ name: "inventory/get_stock", summary: "Current stock of one SKU, and where it is kept." });
    expect(JSON.stringify(all)).not.toContain("inputSchema");

    const queried = ListToolsResult.parse((await call(client, "list_tools", { query: "low STOCK" })).structuredContent);
    expect(queried).toEqual({ tools: [{ name: "inventory/list_low_stock", summary: "SKUs at or below a threshold." }], total: 8 });

    const byServer = ListToolsResult.parse((await call(client, "list_tools", { server: "weather" })).structuredContent);
    expect(byServer.tools.map((tool) => tool.name)).toEqual(listTools(bundle, { server: "weather" }).map((tool) => tool.name));
    expect(byServer.tools).toHaveLength(6);
  });

  it("inspect_tool returns the declared output schema, or null with the note", async () => {
    const declared = await call(client, "inspect_tool", { tool_name: "inventory/list_low_stock" });
    expect(declared.isError).toBeUndefined();
    expect(declared.structuredContent).toEqual(inspection("inventory/list_low_stock"));
    expect(declared.structuredContent).toMatchObject({ outputSchema: { required: ["items", "threshold"] }, source: "declared" });
    expect((declared.structuredContent as ToolInspection).resultType).toMatch(/^type LowStockReport = \{/);

    const none = await call(client, "inspect_tool", { tool_name: "weather/get_weather" });
    expect(none.structuredContent).toMatchObject({
      name: "weather/get_weather",
      outputSchema: null,
      note: NO_OUTPUT_SCHEMA_NOTE,
      resultType: "type GetWeatherResult = rt.ToolResult;",
    });
  });

  it("inspect_tool answers an unknown tool with isError and the exact not-found text", async () => {
    const result = await call(client, "inspect_tool", { tool_name: "weather/mcp__nonexistent" });
    expect(result).toEqual({
      content: [{ type: "text", text: "[Tool not found] 'weather/mcp__nonexistent' is not available" }],
      isError: true,
    });
  });
});

describe("pmcp serve inspect --http", () => {
  let child: ChildProcessWithoutNullStreams;
  let url: string;

  beforeAll(async () => {
    ({ child, url } = await serveOverHttp(["inspect", "--http", "0", "--profile", "gemini", "--schema", ...schemas]));
  });
  afterAll(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("with --profile, inspect_tool shows the schemas Gemini is given and what changed, list_tools each tool's name for it", async () => {
    const client = new Client({ name: "inspect-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    const low = (await call(client, "inspect_tool", { tool_name: "inventory/list_low_stock" })).structuredContent as ToolInspection;
    const int = { type: "integer", minimum: -9007199254740991, maximum: 9007199254740991 };
    expect(low).toEqual({
      ...inspection("inventory/list_low_stock"),
      // $schema is not a field of Gemini's Schema.
      inputSchema: {
        type: "object",
        properties: {
          threshold: {
            default: 10,
            description: "Report SKUs with at most this many units",
            type: "integer",
            minimum: 0,
            maximum: 9007199254740991,
          },
        },
      },
      outputSchema: {
        type: "object",
        properties: {
          items: {
            type: "array",
            items: {
              type: "object",
              properties: { sku: { type: "string" }, quantity: int },
              required: ["sku", "quantity"],
              description: "additionalProperties: false",
            },
          },
          threshold: int,
        },
        required: ["items", "threshold"],
        description: "additionalProperties: false",
      },
      modelName: "list_low_stock",
      profile: "gemini",
      strict: false,
      modelNotes: [
        {
          pointer: "/outputSchema/properties/items/items/additionalProperties",
          kind: "dropped-keyword",
          message: "additionalProperties is not supported here and was dropped; the description states it",
        },
        {
          pointer: "/outputSchema/additionalProperties",
          kind: "dropped-keyword",
          message: "additionalProperties is not supported here and was dropped; the description states it",
        },
      ],
    });
    const none = (await call(client, "inspect_tool", { tool_name: "weather/delete_station" })).structuredContent as ToolInspection;
    expect(none).toEqual({
      ...inspection("weather/delete_station"),
      inputSchema: { type: "object" },
      modelName: "delete_station",
      profile: "gemini",
      strict: false,
      modelNotes: [
        {
          pointer: "/inputSchema",
          kind: "empty-object",
          message: 'no parameters: Gemini rejects an empty "properties"; declare the tool without "parameters"',
        },
      ],
    });
    const listing = ListToolsResult.parse((await call(client, "list_tools", {})).structuredContent);
    expect(listing.tools.map((tool) => [tool.name, tool.modelName])).toEqual(
      listTools(bundle).map((tool) => [tool.name, tool.name.split("/")[1]]),
    );
    await client.close();
  });

  it("serves both tools at /mcp, refuses other methods, paths and hosts, and stops on SIGTERM", async () => {
    const client = new Client({ name: "inspect-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["list_tools", "inspect_tool"]);
    const found = await call(client, "inspect_tool", { tool_name: "weather/get_version" });
    expect(found.structuredContent).toMatchObject({ name: "weather/get_version", source: "declared" });
    await client.close();

    const { port } = new URL(url);
    expect(await status("GET", "/mcp", `127.0.0.1:${port}`)).toBe(405);
    expect(await status("POST", "/other", `127.0.0.1:${port}`)).toBe(404);
    expect(await status("POST", "/mcp", `attacker.example:${port}`)).toBe(403);
    // Host names compare without case; an Origin must be this server's own.
    expect(await status("GET", "/mcp", `LOCALHOST:${port}`)).toBe(405);
    expect(await status("GET", "/mcp", `127.0.0.1:${port}`, `http://127.0.0.1:${port}`)).toBe(405);
    expect(await status("POST", "/mcp", `127.0.0.1:${port}`, "http://attacker.example")).toBe(403);

    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  function status(method: string, path: string, host: string, origin?: string): Promise<number | undefined> {
    const { port } = new URL(url);
    return new Promise((resolve, reject) => {
      request({ host: "127.0.0.1", port, method, path, headers: { host, ...(origin === undefined ? {} : { origin }) } }, (res) => {
        res.resume();
        resolve(res.statusCode);
      })
        .on("error", reject)
        .end();
    });
  }
});
