import { execFile } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import { missing } from "../helpers/system-tools.js";
import { outputDir } from "../helpers/typescript.js";

const run = promisify(execFile);

/** Every file under the checkout's schemas/ and generated/, with when it was last written. */
async function committedOutput(): Promise<Record<string, number>> {
  const times: Record<string, number> = {};
  for (const folder of ["schemas", "generated"]) {
    for (const name of await readdir(join(ROOT, folder))) times[`${folder}/${name}`] = (await stat(join(ROOT, folder, name))).mtimeMs;
  }
  return times;
}

describe.skipIf((await missing("git")) !== undefined)("npm run demo", () => {
  it("runs export, generate and the domain server in a project of its own, and leaves the checkout as it was", async () => {
    const project = await outputDir("demo");
    const status = async () => (await run("git", ["status", "--porcelain"], { cwd: ROOT })).stdout;
    const [statusBefore, before] = [await status(), await committedOutput()];
    const { stdout } = await run(process.execPath, [join(ROOT, "examples/demo.mjs"), project], { cwd: ROOT });
    expect(JSON.parse(stdout.slice(stdout.lastIndexOf("\n{\n")))).toEqual({
      threshold: 50,
      orders: [
        { sku: "SKU-1", name: "Espresso beans 1 kg", warehouse: "north", order: 58 },
        { sku: "SKU-2", name: "Milk frother", warehouse: "south", order: 100 },
      ],
      remembered: 2,
    });
    expect([await readdir(join(project, "schemas")), (await readdir(join(project, "generated"))).sort()]).toEqual([
      ["mcp-bundle.json"],
      ["index.ts", "inventory.ts", "memory.ts"],
    ]);
    // Not rewritten with the same bytes either: untouched.
    expect(await committedOutput()).toEqual(before);
    expect(await status()).toBe(statusBefore);
  });
});
