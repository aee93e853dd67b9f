import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { readSchemaFiles } from "../../src/bundle-files/read.js";
import { parseToolManifest } from "../../src/server/read-manifest.js";
import { ROOT, runCli, runInProcess } from "../helpers/cli.js";
import { COMPILE_BUDGET_MS, outputDir, typecheck } from "../helpers/typescript.js";

let dir: string;

beforeAll(async () => {
  dir = await outputDir("server-side");
});

describe("typed example servers round-trip through export and generate", () => {
  it(
    "the generated result types are the zod output types of the inventory's typed tools",
    async () => {
      const bundle = join(dir, "inventory.json");
      const exported = await runCli([
        "schema",
        "export",
        "--quiet",
        "--config",
        "examples/mcp.json",
        "--server",
        "inventory",
        "-o",
        bundle,
      ]);
      expect(exported.code, exported.stderr).toBe(0);
      const { bundle: read } = await readSchemaFiles([bundle]);
      const getStock = read.servers[0]!.tools.find((tool) => tool.name === "get_stock")!;
      expect(getStock.annotations).toMatchObject({ readOnlyHint: true, "pmcp:outputTypeName": "StockLevel" });
      expect(getStock.outputSchema).toMatchObject({ type: "object", required: ["sku", "name", "quantity", "warehouse", "status"] });

      const out = join(dir, "generated");
      expect((await runInProcess(["generate", "--quiet", "--schema", bundle, "-o", out])).code).toBe(0);
      const check = join(dir, "round-trip.ts");
      await writeFile(
        check,
        [
          'import type { z } from "zod";',
          'import type { inventory } from "./generated/index.js";',
          `import type { LowStockReport, StockLevel } from ${JSON.stringify(join(ROOT, "examples/servers/inventory-tools.js"))};`,
          "type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;",
          "export const stock: Equal<inventory.StockLevel, z.output<typeof StockLevel>> = true;",
          "export const report: Equal<inventory.LowStockReport, z.output<typeof LowStockReport>> = true;",
          "// @ts-expect-error the check can fail: a different shape is not equal",
          "export const different: Equal<inventory.StockLevel, z.output<typeof LowStockReport>> = true;",
        ].join("\n"),
      );
      expect(await typecheck(dir, [join(out, "index.ts"), check], "nodenext")).toBe("");
    },
    COMPILE_BUDGET_MS,
  );
});

describe("pmcp tools from-source", () => {
  it("writes the committed manifest of the example catalogue, and export keeps the schemas and tags the server lists", async () => {
    const manifest = join(dir, "catalog.tools.json");
    const written = await runCli(["tools", "from-source", "examples/tools/catalog.ts", "-o", manifest]);
    expect(written.code, written.stderr).toBe(0);
    expect(written.stdout).toMatch(/^Wrote .*catalog\.tools\.json: \d+ tools from examples\/tools\/catalog\.ts/);
    const committed = await readFile(join(ROOT, "examples/tools/catalog.tools.json"), "utf8");
    expect(await readFile(manifest, "utf8")).toBe(committed);

    // One export of the server twice: as it lists by default (catalog), and with every tool listed (whole).
    const bundle = join(dir, "catalog-bundle.json");
    const server = { command: "node", args: ["--import", "jiti/register", join(ROOT, "examples/tools/server.ts")] };
    const config = join(dir, "catalog-servers.json");
    await writeFile(config, JSON.stringify({ mcpServers: { catalog: server, whole: { ...server, env: { TOOLS_LISTING: "all" } } } }));
    const exported = await runCli(["schema", "export", "--json", "--config", config, "-o", bundle]);
    expect(exported.code, exported.stderr).toBe(0);
    const { tools } = parseToolManifest("catalog.tools.json", committed);
    const servers = (await readSchemaFiles([bundle])).bundle.servers;
    const listed = servers.find((entry) => entry.id === "catalog")!.tools;
    // The server lists its basic tools first (listing: "basic"): export records what a client is first shown,
    // and says that the bundle lacks the rest.
    expect(listed.map((tool) => tool.name)).toEqual(["enable_tools", "get_stock_level", "list_products", "search_products"]);
    const basic = tools.filter((candidate) => candidate._meta?.["pmcp/phase"] === "basic");
    const partial =
      `server "catalog" listed 3 tools first and keeps 6 more behind "enable_tools" (registerFunctions' listing): ` +
      `the bundle holds the first listing only; export a server registered with listing "all" for every tool`;
    expect(exported.stderr).toBe(`warning: ${partial}\n`);
    expect(JSON.parse(exported.stdout).warnings).toEqual([partial]);
    expect(listed.find((tool) => tool.name === "enable_tools")?._meta).toEqual({ "pmcp/unlisted": 6 });
    for (const tool of basic) {
      expect(listed.find((candidate) => candidate.name === tool.name)).toEqual({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: tool.annotations,
        _meta: tool._meta,
      });
    }

    // Served with every tool listed, the export holds the manifest's tools whole, and warns of nothing: the one warning is catalog's.
    const wholeTools = servers.find((entry) => entry.id === "whole")!.tools;
    expect(wholeTools.map((tool) => tool.name)).toEqual(tools.map((tool) => tool.name).sort());
    for (const tool of tools) {
      const { function: _function, class: _class, parameters: _parameters, ...definition } = tool;
      expect(wholeTools.find((candidate) => candidate.name === tool.name)).toEqual(definition);
    }

    // The tags reach the generated client's docs and inspect.
    const generated = join(dir, "catalog-client");
    expect((await runInProcess(["generate", "--quiet", "--schema", bundle, "-o", generated])).code).toBe(0);
    const client = await readFile(join(generated, "catalog.ts"), "utf8");
    expect(client.split("\n").filter((line) => line.includes("Tags:"))).toEqual([
      "   * Tags: category stock, phase basic, popularity 9.",
      "   * Tags: category catalogue, phase basic, popularity 7.",
      "   * Tags: category catalogue, phase basic, popularity 10.",
    ]);
    const inspected = await runInProcess(["inspect", "catalog/search_products", "--schema", bundle]);
    expect(inspected.stdout.split("\n\n").filter((section) => section.startsWith("Tags:"))).toEqual([
      "Tags: category catalogue, phase basic, popularity 10",
    ]);
  });

  it("reports an unsupported type with file and line, writes nothing and exits 1", async () => {
    const source = join(dir, "bad.ts");
    await writeFile(
      source,
      [
        "export async function tally(args: { counts: Map<string, number> }): Promise<{ n: number }> {",
        "  return { n: args.counts.size };",
        "}",
        "",
      ].join("\n"),
    );
    const output = join(dir, "bad.tools.json");
    const result = await runCli(["tools", "from-source", source, "-o", output]);
    expect(result.code).toBe(1);
    expect(result.stderr.split("\n")[0]).toMatch(/^pmcp: .*bad\.ts:1:\d+: .*Map/);
    await expect(readFile(output, "utf8")).rejects.toThrow();
    const missing = await runInProcess(["tools", "from-source", join(dir, "absent.ts")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split("\n")).toHaveLength(2);
  });
});
