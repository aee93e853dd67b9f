// npm run bench:footprint (and part of npm run bench): what a project installs to run generated
// clients. Packs pmcp-codegen and @pmcp-codegen/runtime as they are built here, installs each into a
// fresh project (from the npm registry, as a user would), and compares both with the MCP client
// package and zod alone, and with the v1 SDK and zod that the runtime depended on before, at the
// versions this repository uses.
import { execFileSync } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "pmcp-footprint-"));

function npm(args, cwd) {
  return execFileSync("npm", args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

function pack(dir) {
  const [{ filename }] = JSON.parse(npm(["pack", "--json", "--pack-destination", work], dir));
  return join(work, filename);
}

function installedVersion(name) {
  return JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")).version;
}

/** Disk usage (as `du` counts it) and the number of installed packages, nested copies included. */
function measure(nodeModules) {
  let bytes = 0;
  let packages = 0;
  const walk = (dir, depth) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      const stat = lstatSync(path);
      bytes += stat.blocks * 512;
      if (!entry.isDirectory()) continue;
      // A package is a folder right under node_modules (or under an @scope there); .bin and .package-lock.json are npm's.
      if (depth === "packages" && entry.name.startsWith("@")) walk(path, "scoped");
      else {
        if ((depth === "packages" || depth === "scoped") && entry.name !== ".bin" && entry.name !== ".cache") packages++;
        walk(path, entry.name === "node_modules" ? "packages" : "files");
      }
    }
  };
  walk(nodeModules, "packages");
  return { mb: bytes / 2 ** 20, packages };
}

function install(name, specs) {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `footprint-${name}`, private: true, type: "module" }));
  npm(["install", "--no-audit", "--no-fund", "--ignore-scripts", ...specs], dir);
  return { name, ...measure(join(dir, "node_modules")) };
}

/** Prints each install against the first (the MCP client package and zod); the runtime's size against the 20 MiB it must stay within. */
export function benchFootprint() {
  try {
    const runtime = pack(join(ROOT, "packages/runtime"));
    const full = pack(ROOT);
    const zod = `zod@${installedVersion("zod")}`;
    const results = [
      install("client+zod", [`@modelcontextprotocol/client@${installedVersion("@modelcontextprotocol/client")}`, zod]),
      install("v1 sdk+zod", [`@modelcontextprotocol/sdk@${installedVersion("@modelcontextprotocol/sdk")}`, zod]),
      install("runtime", [runtime]),
      // pmcp-codegen depends on @pmcp-codegen/runtime, which the registry may not have yet: both tarballs.
      install("pmcp-codegen", [full, runtime]),
    ];
    const [base] = results;
    console.log("\ninstall footprint in a fresh project (node_modules: disk usage as du counts it, in MiB; packages as npm counts them)");
    for (const { name, mb, packages } of results) {
      console.log(
        `${name.padEnd(14)} ${mb.toFixed(1).padStart(6)} MiB ${String(packages).padStart(4)} packages   ×${(mb / base.mb).toFixed(2)} the size, +${packages - base.packages} packages vs client+zod`,
      );
    }
    const { mb } = results[2];
    console.log(`the runtime installed alone: ${mb.toFixed(1)} MiB (target ≤ 20 MiB: ${mb <= 20 ? "meets" : "MISSES"})`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) benchFootprint();
