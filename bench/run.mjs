// npm run bench: each figure is a median of repeated runs, measured in this run against its peer.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url));
const peer = fileURLToPath(new URL("./sdk-list.mjs", import.meta.url));
const node = process.execPath;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Wall-clock milliseconds of a whole child process, run `times` times after one warm-up. */
function time(args, times, env = {}) {
  execFileSync(node, args, { stdio: "ignore", env: { ...process.env, ...env } });
  const samples = [];
  for (let i = 0; i < times; i++) {
    const start = process.hrtime.bigint();
    execFileSync(node, args, { stdio: "ignore", env: { ...process.env, ...env } });
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return median(samples);
}

function report(name, ours, theirs, peerName, target) {
  const ratio = ours / theirs;
  const verdict = ratio <= target ? "meets" : "MISSES";
  console.log(`${name}: ${ours.toFixed(0)} ms vs ${peerName} ${theirs.toFixed(0)} ms, ratio ${ratio.toFixed(2)} (target ≤ ${target}: ${verdict})`);
}

const work = mkdtempSync(join(tmpdir(), "pmcp-bench-"));
const env = { MEMORY_FILE_PATH: join(work, "memory.jsonl") };
const main = (name) => join(dirname(require.resolve(`@modelcontextprotocol/${name}/package.json`)), "dist/index.js");
const servers = [[node, main("server-everything")], [node, main("server-filesystem"), work], [node, main("server-memory")]];

console.log(`node ${process.version}, ${servers.length} stdio servers, medians of repeated runs\n`);
const exportArgs = [cli, "schema", "export", "--quiet", "-o", join(work, "bundle.json"), ...servers.flatMap((words) => ["--stdio", words.map((word) => JSON.stringify(word)).join(" ")])];
const exported = time(exportArgs, 7, env);
report("export of 3 third-party servers", exported, time([peer, "sequential", JSON.stringify(servers)], 7, env), "sequential SDK listTools script", 0.6);
// Server start-up is CPU-bound: on few cores even a bare concurrent script cannot reach the slowest single server.
report("  same, against the floor", exported, time([peer, "concurrent", JSON.stringify(servers)], 7, env), "bare concurrent SDK script", 1.2);
report("pmcp --help", time([cli, "--help"], 15), time(["-e", "0"], 15), "node -e 0", 2.5);
rmSync(work, { recursive: true, force: true });
