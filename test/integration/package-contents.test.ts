import { readFile } from "node:fs/promises";
import { join, posix } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGES, packedFiles } from "../helpers/packed.js";

interface Manifest {
  name: string;
  license?: string;
  exports?: unknown;
  bin?: Record<string, string>;
}

async function manifestOf(dir: string): Promise<Manifest> {
  return JSON.parse(await readFile(join(dir, "package.json"), "utf8")) as Manifest;
}

/** Every string of an `exports` value: the targets of all its conditions and subpaths. */
function targetsOf(exports: unknown): string[] {
  if (typeof exports === "string") return [exports];
  if (typeof exports !== "object" || exports === null) return [];
  return Object.values(exports).flatMap(targetsOf);
}

/**
 * The files the tarball's own files point to, each with who points to it: every `.js` and `.d.ts` its
 * source map, every map its sources, the manifest's `exports` and `bin`, and the README and the pages of docs/
 * their relative links and the `examples/…` paths they name. Paths are inside the package; one outside starts with `../`.
 */
async function referencedFiles(dir: string, files: readonly string[]): Promise<{ path: string; from: string }[]> {
  const found: { path: string; from: string }[] = [];
  const add = (path: string, from: string) => found.push({ path: posix.normalize(path).replace(/\/$/, ""), from });
  for (const file of files) {
    if (file.endsWith(".js") || file.endsWith(".d.ts")) {
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(await readFile(join(dir, file), "utf8"))?.[1];
      if (url !== undefined && !url.startsWith("data:")) add(posix.join(posix.dirname(file), url), file);
    }
    if (file.endsWith(".js.map") || file.endsWith(".d.ts.map")) {
      const map = JSON.parse(await readFile(join(dir, file), "utf8")) as { sourceRoot?: string; sources: string[] };
      for (const source of map.sources) add(posix.join(posix.dirname(file), map.sourceRoot ?? "", source), file);
    }
  }
  const manifest = await manifestOf(dir);
  for (const target of [...targetsOf(manifest.exports), ...Object.values(manifest.bin ?? {})]) add(target, "package.json");
  for (const page of ["README.md", ...files.filter((file) => file.startsWith("docs/") && file.endsWith(".md"))]) {
    const text = await readFile(join(dir, page), "utf8");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^(?:[a-z]+:|#)/.test(target!)) add(posix.join(posix.dirname(page), target!.split("#")[0]!), `${page} link`);
    }
    for (const [, path] of text.matchAll(/`(examples\/[^`\s]*)`/g)) add(path!, page);
  }
  return found;
}

/** What `npm pack` would put in each package's tarball, listed once for every case here (a slow command on a loaded machine). */
const listed = new Map<string, Promise<string[]>>();
function listedFiles(dir: string): Promise<string[]> {
  if (!listed.has(dir)) listed.set(dir, packedFiles(dir));
  return listed.get(dir)!;
}

describe("the packed packages", () => {
  it.each([
    [
      PACKAGES.codegen,
      "pmcp-codegen",
      ["CHANGELOG.md", "LICENSE", "README.md", "dist", "docs", "examples", "generated", "package.json", "schemas", "src", "templates"],
    ],
    [PACKAGES.runtime, "@pmcp-codegen/runtime", ["LICENSE", "README.md", "dist", "package.json", "src"]],
  ])(
    "%s carries its README and the MIT LICENSE",
    async (dir, name, entries) => {
      const top = [...new Set((await listedFiles(dir)).map((file) => file.split("/")[0]!))].sort();
      const { license, name: packed } = await manifestOf(dir);
      expect({ name: packed, license, entries: top }).toEqual({ name, license: "MIT", entries });
    },
    300_000,
  );

  it.each([
    ["pmcp-codegen", PACKAGES.codegen],
    ["@pmcp-codegen/runtime", PACKAGES.runtime],
  ])(
    "%s carries every file its source maps, exports, bin, README and docs point to",
    async (_name, dir) => {
      const files = await listedFiles(dir);
      const carried = new Set(files);
      const isCarried = (path: string) => carried.has(path) || files.some((file) => file.startsWith(`${path}/`));
      const references = await referencedFiles(dir, files);
      // Every module tsc built names its map, so the maps' sources are among what is checked. The binary's chunks
      // (dist/bin) have none: unminified, they read as they run, and their maps would name the bundled dependencies' files.
      // Nor has the sandbox's prelude script, bundled from a module that has one, which a VM evaluates and Node never loads.
      const bundled = (file: string) => file.startsWith("dist/bin/") || file.endsWith(".vm.js");
      const built = files.filter((file) => file.startsWith("dist/") && file.endsWith(".js") && !bundled(file));
      expect(references.filter((reference) => built.includes(reference.from)).length).toBe(built.length);
      expect(references.filter((reference) => !isCarried(reference.path))).toEqual([]);
    },
    300_000,
  );
});
