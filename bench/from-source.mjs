// `pmcp tools from-source` on the example catalogue, whole processes: a first run (cache emptied) and a
// run on unchanged sources (answered from the cache), against `tsc --noEmit` of the same program.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { median } from "./lib.mjs";

const cli = fileURLToPath(new URL("../dist/bin/pmcp.js", import.meta.url));
const catalog = fileURLToPath(new URL("../examples/tools/catalog.ts", import.meta.url));
const tsc = join(createRequire(import.meta.url).resolve("typescript/package.json"), "..", "bin", "tsc");
const self = fileURLToPath(import.meta.url);

/** Milliseconds of each of `times` runs of `node args` in `cwd`, `before` run untimed ahead of each. */
function samples(args, cwd, times, before = () => {}) {
  return Array.from({ length: times }, () => {
    before();
    const start = process.hrtime.bigint();
    execFileSync(process.execPath, args, { cwd, stdio: "ignore" });
    return Number(process.hrtime.bigint() - start) / 1e6;
  });
}

export function benchFromSource() {
  // Its own node_modules: the cache lives there, and emptying it touches no other run's.
  const work = mkdtempSync(join(tmpdir(), "pmcp-bench-from-source-"));
  mkdirSync(join(work, "node_modules"));
  // The program from-source compiles: the catalogue under the repository's tsconfig.json, its types found there too.
  const repository = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
  writeFileSync(
    join(work, "tsconfig.json"),
    JSON.stringify({
      extends: repository("tsconfig.json"),
      compilerOptions: { typeRoots: [repository("node_modules/@types")] },
      files: [catalog],
      include: [],
    }),
  );
  const fromSource = [cli, "tools", "from-source", "--quiet", catalog];
  const emptyCache = () => rmSync(join(work, "node_modules", ".cache"), { recursive: true, force: true });

  const first = median(samples(fromSource, work, 3, emptyCache));
  samples(fromSource, work, 1);
  const cached = median(samples(fromSource, work, 9));
  const peer = median(samples([tsc, "--noEmit", "-p", join(work, "tsconfig.json")], work, 3));
  const version = median(samples([cli, "--version"], work, 9));
  const ratio = (ms) => `×${(ms / peer).toFixed(2)}`;
  console.log(
    `pmcp tools from-source, examples/tools/catalog.ts, whole process: first run ${first.toFixed(0)} ms (${ratio(first)}), unchanged sources ${cached.toFixed(0)} ms (${ratio(cached)}; target ≤ 300 ms: ${cached <= 300 ? "meets" : "MISSES"}), against tsc --noEmit of the same program ${peer.toFixed(0)} ms; pmcp --version ${version.toFixed(0)} ms`,
  );
  rmSync(work, { recursive: true, force: true });
}

if (process.argv[1] === self) benchFromSource();
