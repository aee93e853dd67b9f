import { mkdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { registerInventoryTools } from "../../examples/servers/inventory-tools.js";
import { ROOT } from "../helpers/cli.js";
import { serveHttp } from "../helpers/http-server.js";
import { run } from "../helpers/loaded-modules.js";

// The runtime under Deno, from the npm package `deno`; the runtime under Node is test/integration/runtime-package.test.ts.
describe("a generated client for an HTTP server under Deno", () => {
  it("calls a tool through the committed inventory client and parses the result", async () => {
    const fixture = await serveHttp(
      () => {
        const server = new McpServer({ name: "Inventory", version: "1.0.0" });
        registerInventoryTools(server);
        return server;
      },
      { transport: "streamable-http" },
    );
    try {
      // Deno caches what it compiles; a fresh folder keeps the run independent of earlier ones.
      const denoDir = join(await mkdtemp(join(tmpdir(), "pmcp-deno-")), "cache");
      await mkdir(denoDir);
      const result = await run(
        process.execPath,
        // The npm package's launcher: it finds the binary even where install scripts did not run.
        [
          join(ROOT, "node_modules/deno/bin.cjs"),
          "run",
          "--no-prompt",
          "--allow-net=127.0.0.1",
          "--allow-read",
          "--allow-env",
          "test/fixtures/deno-client.ts",
          fixture.url,
        ],
        { DENO_DIR: denoDir, DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
      );
      expect(result.stderr).toBe("");
      expect(JSON.parse(result.stdout)).toEqual({
        sku: "SKU-1",
        name: "Espresso beans 1 kg",
        quantity: 42,
        warehouse: "north",
        status: "in_stock",
      });
      expect(result.code).toBe(0);
    } finally {
      await fixture.close();
    }
  });
});
