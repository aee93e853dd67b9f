// How soon code mode answers: from spawning `pmcp serve exec` over the three reference servers
// to its answer to `initialize`, and to the first execute_program's, with every server typed by
// --schema (none needs to start first) and without (each is listed at start), beside `pmcp serve
// inspect` and a bare SDK server (the typed fixture: an McpServer over serveStdio) to `initialize`.
// Target: `initialize` answered within 1 s whatever the servers; the servers, the listing and the
// type-checker's warm-up come after it. Runnable alone: node bench/startup.mjs
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { median, referenceExport } from "./lib.mjs";

const CLI = fileURLToPath(new URL("../dist/bin/pmcp.js", import.meta.url));
const BARE = fileURLToPath(new URL("../test/fixtures/typed-server.mjs", import.meta.url));
/** Rounds measured after a warm-up one; ROUNDS=1 for a quick look. */
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const TARGET_MS = 1000;
/** Time enough for the first program to wait out the start on a busy machine: what it waits for is the measure. */
const PROGRAM_MS = "120000";
const PROGRAM = "const graph = await memory.readGraph({}); return graph.entities.length;";

/**
 * Milliseconds from spawning `args` to its answer to `initialize` and, with `program`, to that
 * program's execute_program answer (which must succeed).
 */
async function firstAnswers(args, env, program) {
  const start = performance.now();
  const child = spawn(process.execPath, args, { stdio: ["pipe", "pipe", "ignore"], env: { ...process.env, ...env } });
  const lines = createInterface({ input: child.stdout });
  const send = (message) => child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
  const answers = new Map();
  const answered = (id) =>
    new Promise((resolve) => {
      const onLine = (line) => {
        const message = JSON.parse(line);
        if (message.id !== id) return;
        lines.off("line", onLine);
        resolve(message);
      };
      lines.on("line", onLine);
    });
  try {
    const initialized = answered(1);
    send({
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "bench", version: "1" } },
    });
    await initialized;
    answers.set("initialize", performance.now() - start);
    if (program === undefined) return answers;
    send({ method: "notifications/initialized" });
    const ran = answered(2);
    send({ id: 2, method: "tools/call", params: { name: "execute_program", arguments: { code: program } } });
    const { result } = await ran;
    if (result?.isError !== undefined) throw new Error(`execute_program failed: ${result?.content?.[0]?.text}`);
    answers.set("execute_program", performance.now() - start);
    return answers;
  } finally {
    child.stdin.end();
    child.kill();
    await new Promise((resolve) => (child.exitCode === null ? child.once("exit", resolve) : resolve()));
  }
}

function verdict(ms) {
  return ms <= TARGET_MS ? "meets" : "MISSES";
}

export async function benchStartup() {
  const work = await mkdtemp(join(tmpdir(), "pmcp-bench-startup-"));
  try {
    const { servers, env } = referenceExport(CLI, work);
    const [everything, filesystem, memory] = servers;
    const config = join(work, "mcp.json");
    const entry = ([command, ...args]) => ({ command, args, env });
    await writeFile(
      config,
      JSON.stringify({ mcpServers: { everything: entry(everything), filesystem: entry(filesystem), memory: entry(memory) } }),
    );
    const bundle = join(work, "bundle.json");
    execFileSync(process.execPath, [CLI, "schema", "export", "--quiet", "--config", config, "-o", bundle], {
      stdio: "inherit",
      env: { ...process.env, ...env },
    });

    const runs = {
      "serve exec --schema": [CLI, "serve", "exec", "--config", config, "--schema", bundle, "--max-time-ms", PROGRAM_MS],
      "serve exec (listing at start)": [CLI, "serve", "exec", "--config", config, "--max-time-ms", PROGRAM_MS],
      "serve inspect": [CLI, "serve", "inspect", "--schema", bundle],
      "bare SDK server": [BARE],
    };
    const samples = Object.fromEntries(Object.keys(runs).map((name) => [name, { initialize: [], execute_program: [] }]));
    // Rounds alternate between the four, so that each sees the same machine; the first is a warm-up.
    for (let round = 0; round <= ROUNDS; round++) {
      for (const [name, args] of Object.entries(runs)) {
        const answers = await firstAnswers(args, env, name.startsWith("serve exec") ? PROGRAM : undefined);
        if (round === 0) continue;
        for (const [what, ms] of answers) samples[name][what].push(ms);
      }
    }
    const bare = median(samples["bare SDK server"].initialize);
    const inspect = median(samples["serve inspect"].initialize);
    console.log(
      `startup: spawn → initialize, serve inspect ${inspect.toFixed(0)} ms, a bare SDK server ${bare.toFixed(0)} ms (the three reference servers, medians of ${ROUNDS})`,
    );
    for (const name of ["serve exec --schema", "serve exec (listing at start)"]) {
      const initialize = median(samples[name].initialize);
      const program = median(samples[name].execute_program);
      console.log(
        `startup: ${name}: spawn → initialize ${initialize.toFixed(0)} ms (target ≤ ${TARGET_MS} ms: ${verdict(initialize)}), ratio ${(initialize / bare).toFixed(2)} to the bare SDK server, ${(initialize / inspect).toFixed(2)} to serve inspect; spawn → first execute_program answer ${program.toFixed(0)} ms`,
      );
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchStartup();
