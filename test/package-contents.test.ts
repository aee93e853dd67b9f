import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/cli.js";

/** The top-level entries of the tarball `npm pack` would make of the package in `dir`. */
async function packedTopLevel(dir: string): Promise<{ name: string; license: string | undefined; entries: string[] }> {
  const { stdout } = await promisify(execFile)("npm", ["pack", "--dry-run", "--json"], { cwd: dir });
  const [packed] = JSON.parse(stdout) as [{ name: string; files: { path: string }[] }];
  const entries = [...new Set(packed.files.map((file) => file.path.split("/")[0] ?? ""))].sort();
  const { license } = (await import(join(dir, "package.json"), { with: { type: "json" } })).default as { license?: string };
  return { name: packed.name, license, entries };
}

describe("the packed packages", () => {
  it.each([
    [ROOT, "pmcp-codegen", ["LICENSE", "README.md", "dist", "package.json", "schemas", "templates"]],
    [join(ROOT, "packages/runtime"), "@pmcp-codegen/runtime", ["LICENSE", "README.md", "dist", "package.json"]],
  ])("%s carries its README and the MIT LICENSE", async (dir, name, entries) => {
    expect(await packedTopLevel(dir)).toEqual({ name, license: "MIT", entries });
  });
});
