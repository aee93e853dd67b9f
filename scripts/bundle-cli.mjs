// Bundles the `pmcp` binary (dist/bin/pmcp.js) after tsc's emit, for npm run build and npm run emit:
// dist/cli/main.js and what it imports, its dependencies among them, in chunks loaded as its commands need
// them. Unbundled, a `schema export` loaded some 300 modules, a third of its start-up. The library entries
// stay unbundled.
import { rmSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "rolldown";

const ROOT = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const DIST = `${ROOT}/dist/`;
const OUT = `${ROOT}/dist/bin`;

/**
 * Packages loaded as they are: the compiler (loaded only by the commands that compile, by require), those
 * that read files beside their own modules or are large and loaded by one command, and OpenTelemetry's API,
 * whose one instance the SDK and the CLI's spans must share.
 */
const EXTERNAL = [
  "typescript",
  "quicktype-core",
  "handlebars",
  "@opentelemetry/api",
  "@opentelemetry/sdk-node",
  "quickjs-wasi",
  "jiti",
  "chokidar",
];

/**
 * Our modules find files beside them (the templates, the checker's and the sandbox's entry modules, the
 * package.json) by `import.meta.url`: in a chunk, that names the chunk. Each keeps its own URL, as the
 * place its module has in dist/, relative to the chunk (every chunk is in dist/bin).
 */
const ownModuleUrls = {
  name: "own-module-urls",
  transform(code, id) {
    if (!id.startsWith(DIST) || !code.includes("import.meta.url")) return null;
    const url = `new URL(${JSON.stringify(relative(OUT, id))}, import.meta.url).href`;
    return { code: code.replaceAll("import.meta.url", url), map: null };
  },
};

// Chunks are named by their content: those of an earlier build would stay beside the new ones.
rmSync(OUT, { recursive: true, force: true });
await build({
  input: { pmcp: `${DIST}cli/main.js` },
  platform: "node",
  external: (id) => id.startsWith("node:") || id.endsWith(".cjs") || EXTERNAL.some((name) => id === name || id.startsWith(`${name}/`)),
  plugins: [ownModuleUrls],
  output: { dir: OUT, format: "esm", entryFileNames: "[name].js", chunkFileNames: "[name]-[hash].js" },
});
