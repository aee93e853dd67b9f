import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import { loadedBy } from "../helpers/loaded-modules.js";

describe("pmcp-codegen/config, the entry a pmcp.config.ts imports", () => {
  // The package's root loaded 227 modules, the MCP client among them, for every CLI run with a pmcp.config.ts.
  it("loads its own two modules and nothing else: no dependency, no other part of the package", async () => {
    const { urls, required } = await loadedBy("pmcp-codegen/config");
    const files = urls.filter((url) => url.startsWith("file:")).map((url) => fileURLToPath(url));
    expect(files).toEqual([join(ROOT, "dist/config/define-config.js"), join(ROOT, "dist/config/index.js")]);
    expect(required).toEqual([]);
  });
});
