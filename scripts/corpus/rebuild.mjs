// Rebuilds the corpus of real MCP servers' tool listings (`npm run corpus:rebuild`, after `npm run build`).
//
// 1. Installs every package pinned in scripts/corpus/servers.json with one `npm install --ignore-scripts`
//    into a work folder (a temporary one, or `--work <dir>` to keep and reuse it).
// 2. Writes an `mcpServers` config there that runs each server's bin with `node` (never npx), with dummy
//    credentials, base URLs and proxies on 127.0.0.1:9, so that nothing leaves the machine; no tool is called.
// 3. Runs our own exporter on it (`schema export --allow-partial`), which lists every server's tools within
//    `--timeout` and reports the servers that failed.
// 4. Writes test/corpus/servers.bundle.json.gz (the exporter's bundle, gzipped with no timestamp and a
//    fixed OS byte, so the same versions give the same bytes, except where a server itself varies: currents
//    puts the current time in two defaults) and test/corpus/servers.versions.json (each package's version,
//    each server's tool and output schema counts, and why the others failed).
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { gzipSync } from "node:zlib";

const ROOT = resolve(import.meta.dirname, "../..");
const OUT = join(ROOT, "test/corpus");
const { values } = parseArgs({
  options: {
    work: { type: "string" },
    timeout: { type: "string", default: "90000" },
    concurrency: { type: "string", default: "4" },
  },
});

const list = JSON.parse(readFileSync(join(import.meta.dirname, "servers.json"), "utf8"));
const work = values.work === undefined ? mkdtempSync(join(tmpdir(), "pmcp-corpus-")) : resolve(values.work);
mkdirSync(join(work, "home"), { recursive: true });
// Browsers and other binaries are never downloaded: listing tools does not need them. `overrides` replaces
// dependencies that only a git host serves (the registry is all the network there is).
const dependencies = Object.fromEntries(list.servers.map((server) => [server.package, server.version]));
writeFileSync(
  join(work, "package.json"),
  `${JSON.stringify({ name: "pmcp-corpus", private: true, dependencies, overrides: list.overrides }, null, 2)}\n`,
);
run("npm", ["install", "--ignore-scripts", "--no-audit", "--no-fund", "--legacy-peer-deps"], {
  cwd: work,
  env: { ...process.env, PUPPETEER_SKIP_DOWNLOAD: "1", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" },
});

const packages = {};
const mcpServers = {};
for (const server of list.servers) {
  const manifest = JSON.parse(readFileSync(join(work, "node_modules", server.package, "package.json"), "utf8"));
  if (manifest.version !== server.version) throw new Error(`${server.package}: installed ${manifest.version}, pinned ${server.version}`);
  packages[server.package] = manifest.version;
  // Dummy credential files some servers insist on reading at startup (paths relative to the work folder).
  for (const [path, content] of Object.entries(server.files ?? {})) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), JSON.stringify(content));
  }
  mcpServers[server.id] = {
    command: "node",
    // Relative to the config's folder, the servers' working directory: the recorded endpoints name no temporary path.
    args: [join("node_modules", server.package, binOf(server, manifest)), ...(server.args ?? [])],
    env: { HOME: join(work, "home"), ...list.env, ...server.env },
  };
}
const config = join(work, "mcp.json");
writeFileSync(config, `${JSON.stringify({ mcpServers }, null, 2)}\n`);

const bundlePath = join(work, "bundle.json");
const exported = run(
  process.execPath,
  [
    join(ROOT, "dist/bin/pmcp.js"),
    "schema",
    "export",
    "--config",
    config,
    "--allow-partial",
    "--json",
    "--timeout",
    values.timeout,
    "--concurrency",
    values.concurrency,
    "-o",
    bundlePath,
  ],
  { cwd: work, stdio: ["ignore", "pipe", "inherit"] },
);
const summary = JSON.parse(exported.stdout);

const captured = JSON.parse(readFileSync(bundlePath, "utf8"));
const packageOf = new Map(list.servers.map((server) => [server.id, server.package]));
const failed = summary.failures.map((line) => {
  const match = /^server "([^"]+)": ([\s\S]*)$/.exec(line);
  if (match === null) throw new Error(`unexpected failure line: ${line}`);
  return { id: match[1], package: packageOf.get(match[1]), reason: match[2].replaceAll(work, "<work>").slice(0, 400) };
});
const versions = {
  packages: Object.fromEntries(Object.entries(packages).sort(([a], [b]) => a.localeCompare(b))),
  servers: captured.servers.map((server) => ({
    id: server.id,
    package: packageOf.get(server.id),
    tools: server.tools.length,
    outputSchemas: server.tools.filter((tool) => tool.outputSchema !== undefined).length,
  })),
  failed,
};
const gzipped = gzipSync(readFileSync(bundlePath), { level: 9 });
gzipped[9] = 0xff; // The OS byte ("unknown"), which would otherwise differ between platforms.
writeFileSync(join(OUT, "servers.bundle.json.gz"), gzipped);
writeFileSync(join(OUT, "servers.versions.json"), `${JSON.stringify(versions, null, 2)}\n`);

const total = (key) => versions.servers.reduce((sum, server) => sum + server[key], 0);
console.log(
  `${versions.servers.length} servers, ${total("tools")} tools (${total("outputSchemas")} with an output schema), ${failed.length} failed; ` +
    `${gzipped.length} bytes gzipped, ${statSync(bundlePath).size} bytes of JSON`,
);
for (const failure of failed) console.log(`  failed ${failure.id}: ${failure.reason.split("\n")[0]}`);
if (values.work === undefined) rmSync(work, { recursive: true, force: true });

/** The bin the entry names, else the package's only bin, else the one named like the package. */
function binOf(server, manifest) {
  if (typeof manifest.bin === "string") return manifest.bin;
  const bins = manifest.bin ?? {};
  const name = server.bin ?? (Object.keys(bins).length === 1 ? Object.keys(bins)[0] : manifest.name.replace(/^@[^/]+\//, ""));
  if (bins[name] === undefined) throw new Error(`${server.package}: no bin "${name}" (it has ${Object.keys(bins).join(", ")})`);
  return bins[name];
}

function run(command, args, options) {
  const result = spawnSync(command, args, { stdio: "inherit", encoding: "utf8", maxBuffer: 256 * 1024 * 1024, ...options });
  if (result.status !== 0) throw new Error(`${command} ${args.slice(0, 3).join(" ")} … exited with ${result.status ?? result.signal}`);
  return result;
}
