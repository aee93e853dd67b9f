// Head-of-line blocking in the type-checker. As the repro: five clients of one
// `pmcp serve exec --http` each run `return 1` in turn, with no other load and then while a
// sixth client keeps sending a type bomb (types that take TypeScript seconds and gigabytes); the
// figure is the median latency of the five with the bomb against without it. And between two
// callers told apart by their tokens, one of them sending bombs with a short timeout_ms.
import { spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { median, report } from "./lib.mjs";

const CLI = fileURLToPath(new URL("../dist/bin/pmcp.js", import.meta.url));
const TYPED_SERVER = fileURLToPath(new URL("../test/fixtures/typed-server.mjs", import.meta.url));
const CLIENTS = 5;
const PROGRAMS_PER_CLIENT = 20;
const ROUNDS = 3;
const union = Array.from({ length: 100 }, (_, i) => i).join(" | ");
const TYPE_BOMB = `type N = ${union};\ntype Trip = { [A in N]: { [B in N]: { [C in N]: [A, B, C] }[N] }[N] }[N];\nreturn [1, 2, 3] as Trip;`;

/** `pmcp serve exec --http` over the typed fixture, with `pmcp.config.mjs` text if given; its URL, and how to stop it. */
async function serveExec(configModule) {
  const dir = await mkdtemp(join(tmpdir(), "pmcp-bench-head-of-line-"));
  const config = join(dir, "mcp.json");
  await writeFile(config, JSON.stringify({ mcpServers: { inventory: { command: process.execPath, args: [TYPED_SERVER] } } }));
  if (configModule !== undefined) await writeFile(join(dir, "pmcp.config.mjs"), configModule);
  const served = spawn(process.execPath, [CLI, "serve", "exec", "--http", "0", "--config", config], {
    cwd: dir,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const stop = async () => {
    if (served.exitCode === null && served.signalCode === null) {
      served.kill("SIGTERM");
      await new Promise((resolve) => served.once("exit", resolve));
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise((resolve, reject) => {
      let stderr = "";
      served.stderr.on("data", (chunk) => {
        stderr += chunk;
        const match = /^Serving exec on (\S+)$/m.exec(stderr);
        if (match) resolve(match[1]);
      });
      served.once("exit", (code) => reject(new Error(`serve exec exited ${code}: ${stderr}`)));
    });
    return { url, pid: served.pid, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A client of `url`, sending `token` if given. */
async function connectTo(url, token) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  const requestInit = token === undefined ? undefined : { headers: { authorization: `Bearer ${token}` } };
  await client.connect(new StreamableHTTPClientTransport(new URL(url), requestInit === undefined ? {} : { requestInit }));
  return client;
}

const execute = (client, code, timeoutMs) =>
  client.callTool({ name: "execute_program", arguments: timeoutMs === undefined ? { code } : { code, timeout_ms: timeoutMs } }, undefined, {
    timeout: 120_000,
  });

export async function benchHeadOfLine() {
  const { url, pid, stop } = await serveExec();
  // Stopped however the bench ends: a failure midway left serve exec and its server running.
  try {
    const connect = () => connectTo(url);
    const clients = await Promise.all(Array.from({ length: CLIENTS }, connect));
    const bomber = await connect();
    let failures = 0;
    /** Every client runs its programs one after the other; the latency of each program, all clients together. */
    const latencies = async () => {
      const samples = await Promise.all(
        clients.map(async (client) => {
          const own = [];
          for (let i = 0; i < PROGRAMS_PER_CLIENT; i++) {
            const start = performance.now();
            const outcome = await execute(client, "return 1;");
            own.push(performance.now() - start);
            if (outcome.isError) failures++;
          }
          return own;
        }),
      );
      return samples.flat();
    };
    const withBomb = async () => {
      let measuring = true;
      const bombing = (async () => {
        while (measuring) {
          await execute(bomber, TYPE_BOMB);
        }
      })();
      // The bomb is in a checker before the others start.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const measured = await latencies();
      measuring = false;
      await bombing;
      // The bomb's thread is ended a second after its limit, and its replacement's start-up is not the next round's.
      await new Promise((resolve) => setTimeout(resolve, 5_000));
      return measured;
    };

    // Warm: every checker and sandbox thread has checked and run a few programs.
    await latencies();
    failures = 0;
    const status = `/proc/${pid}/status`;
    const warmRss = existsSync(status) ? rss(readFileSync(status, "utf8"), "VmRSS") : undefined;
    const calm = [];
    const bombed = [];
    const ratios = [];
    for (let round = 0; round < ROUNDS; round++) {
      const quiet = median(await latencies());
      const loud = median(await withBomb());
      calm.push(quiet);
      bombed.push(loud);
      ratios.push(loud / quiet);
    }
    report(
      `head-of-line: median \`return 1\` of ${CLIENTS} clients of serve exec --http while a 6th sends a type bomb`,
      median(bombed),
      median(calm),
      "with no bomb",
      1.5,
      "ms",
      median(ratios),
    );
    const memory =
      warmRss === undefined ? "" : `; serve exec's RSS ${warmRss} MB warm, ${rss(readFileSync(status, "utf8"), "VmHWM")} MB at its peak`;
    console.log(`  (${failures} of ${ROUNDS * 2 * CLIENTS * PROGRAMS_PER_CLIENT} measured programs failed${memory})`);

    await Promise.all([...clients, bomber].map((client) => client.close()));
  } finally {
    await stop();
  }
}

/** Two tokens; `shared`: both the same client's, so the pool sees one caller. */
const twoCallersConfig = (shared) => `const RESOURCE = "http://mcp.bench/mcp";
const CLIENTS = { "token-a": "client-a", "token-b": ${shared ? '"client-a"' : '"client-b"'} };
export default {
  serve: {
    auth: {
      authorizationServers: ["https://auth.example.com"],
      resource: RESOURCE,
      verifier: {
        async verifyAccessToken(token) {
          const clientId = CLIENTS[token];
          if (clientId === undefined) throw new Error("unknown token");
          return { token, clientId, scopes: [], resource: new URL(RESOURCE), expiresAt: Math.floor(Date.now() / 1000) + 3600 };
        },
      },
    },
  },
};
`;

const BOMB_TIMEOUT_MS = 300;
/**
 * About two seconds of `return 1` (a few milliseconds each): several bombs' turns, each a check given
 * up on, a checker replaced and the wait its caller owes. Forty took a third of a second, less than
 * one bomb's turn, and measured how the first bomb began rather than bombs back to back.
 */
const TWO_CALLER_PROGRAMS = 200;

/**
 * The type-checkers shared between callers: one caller runs `return 1` in turn, with no other load
 * and then while a second caller sends type bombs back to back, each with timeout_ms 300 (given up on
 * at once, its checker ended then, or a grace later when the pool sees one caller, and replaced).
 * Both callers known by their tokens, and then, for comparison, both tokens one client's.
 */
export async function benchTwoCallers() {
  const measure = async (shared) => {
    const { url, stop } = await serveExec(twoCallersConfig(shared));
    try {
      const [caller, bomber] = await Promise.all([connectTo(url, "token-a"), connectTo(url, "token-b")]);
      const latencies = async () => {
        const samples = [];
        for (let i = 0; i < TWO_CALLER_PROGRAMS; i++) {
          const start = performance.now();
          const outcome = await execute(caller, "return 1;");
          samples.push(performance.now() - start);
          if (outcome.isError) throw new Error(`return 1 failed: ${JSON.stringify(outcome.content)}`);
        }
        return samples;
      };
      await latencies();
      const calm = [];
      const bombed = [];
      for (let round = 0; round < ROUNDS; round++) {
        calm.push(median(await latencies()));
        let measuring = true;
        const bombing = (async () => {
          while (measuring) await execute(bomber, TYPE_BOMB, BOMB_TIMEOUT_MS);
        })();
        bombed.push(median(await latencies()));
        measuring = false;
        await bombing;
        // The last bomb's checker is replaced before the next round's calm figure.
        await new Promise((resolve) => setTimeout(resolve, 4_000));
      }
      await Promise.all([caller.close(), bomber.close()]);
      return { calm: median(calm), bombed: median(bombed) };
    } finally {
      await stop();
    }
  };
  const fair = await measure(false);
  const one = await measure(true);
  report(
    `head-of-line, two callers: median \`return 1\` of one caller of serve exec --http while the other sends type bombs (timeout_ms ${BOMB_TIMEOUT_MS}) back to back`,
    fair.bombed,
    fair.calm,
    "with no bomb",
    1.5,
    "ms",
  );
  console.log(
    `  (both tokens one client's, the pool seeing one caller: ${one.bombed.toFixed(1)} ms against ${one.calm.toFixed(1)} ms, ${(one.bombed / one.calm).toFixed(2)}x)`,
  );
}

function rss(status, field) {
  const kb = Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return Math.round(kb / 1024);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await benchHeadOfLine();
  await benchTwoCallers();
}
