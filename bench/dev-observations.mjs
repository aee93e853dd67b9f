// `pmcp dev --observations`: the time from writing the observation that crosses a quality level
// (low → medium, the 10th consistent one) to the client regenerated with the result type on disk,
// with dev following 100 tools' logs, against the manual loop (`pmcp schema infer` then
// `pmcp generate`, two commands); and dev's CPU while it follows the logs and nothing happens.
// The logs are written by the runtime's ObservationRecorder, as a client observing its calls does.
import { execFileSync, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ObservationRecorder } from "../packages/runtime/dist/index.js";
import { median, now, until, whenWritten } from "./lib.mjs";

const cli = fileURLToPath(new URL("../dist/bin/pmcp.js", import.meta.url));
const fixture = fileURLToPath(new URL("../test/fixtures/dev-server.mjs", import.meta.url));
const TOOLS = 100;
const ROUNDS = 10;
const MANUAL_ROUNDS = 5;
const IDLE_MS = 10_000;
/** Observations each tool starts with: low quality, one short of medium. */
const BEFORE = 9;

/** The tools of the fixture run with `--tools 100`: get_stock and tool_1 … tool_99, none with an output schema. */
const toolNames = ["get_stock", ...Array.from({ length: TOOLS - 1 }, (_, i) => `tool_${i + 1}`)];
const resultType = (tool) => `${tool.replace(/(^|_)([a-z0-9])/g, (_, __, char) => char.toUpperCase())}Result`;

async function observe(dir, tool, times) {
  const recorder = new ObservationRecorder({ dir });
  for (let i = 0; i < times; i++) recorder.record("bench", tool, { id: `item-${i}`, count: i, tags: ["a", "b"] });
  await recorder.flush();
}

/** CPU time (user + system) of a process so far, in ms, from /proc: Linux only. */
async function cpuMs(pid) {
  const fields = (await readFile(`/proc/${pid}/stat`, "utf8")).split(") ")[1].split(" ");
  // utime and stime are fields 14 and 15 of the whole line, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

export async function benchDevObservations() {
  // A project folder: its node_modules holds the reuse cache, as a real project's does.
  const work = await mkdtemp(join(tmpdir(), "pmcp-bench-dev-observations-"));
  await mkdir(join(work, "node_modules"));
  const logs = join(work, "observations");
  for (const tool of toolNames) await observe(logs, tool, BEFORE);
  const server = `${JSON.stringify(process.execPath)} ${JSON.stringify(fixture)} --tools ${TOOLS}`;
  // Medium and up: crossing the level is what turns `rt.ToolResult` into the learned type.
  const flags = ["--min-quality", "medium", "--runtime-import", "@pmcp-codegen/runtime"];
  const dev = spawn(process.execPath, [cli, "dev", "--quiet", "--stdio", server, "--id", "bench", "--observations", logs, ...flags], {
    cwd: work,
    stdio: "ignore",
  });
  const generated = join(work, "generated");
  const bundlePath = join(work, "schemas/mcp-bundle.json");
  await until(() =>
    readFile(bundlePath, "utf8").then(
      (text) => JSON.parse(text).servers[0]?.inferred?.length === TOOLS,
      () => false,
    ),
  );

  const samples = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const tool = toolNames[round];
    const written = whenWritten(generated, "bench.ts", `export type ${resultType(tool)} = {`);
    await observe(logs, tool, 1);
    const sent = now();
    const onDisk = await written;
    // The first round warms up.
    if (round > 0) samples.push(onDisk - sent);
  }

  // Idle: nothing written, dev following 100 logs and one server.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const idle = await cpuMs(dev.pid).then(
    async (start) => {
      const from = now();
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      return { cpu: (await cpuMs(dev.pid)) - start, wall: now() - from };
    },
    () => undefined,
  );
  dev.kill("SIGINT");
  await new Promise((resolve) => dev.on("exit", resolve));

  // The manual loop on the same bundle and logs: one new observation, then the two commands.
  const manual = [];
  for (let round = 0; round <= MANUAL_ROUNDS; round++) {
    await observe(logs, toolNames[ROUNDS + 1 + round], 1);
    const start = now();
    execFileSync(process.execPath, [cli, "schema", "infer", "--quiet", "--observations", logs], { cwd: work, stdio: "ignore" });
    execFileSync(process.execPath, [cli, "generate", "--quiet", ...flags], { cwd: work, stdio: "ignore" });
    if (round > 0) manual.push(now() - start);
  }
  await rm(work, { recursive: true, force: true });

  const latency = median(samples);
  const loop = median(manual);
  console.log(
    `pmcp dev --observations, the observation crossing low → medium → regenerated typed client on disk, 1 of ${TOOLS} tools' logs: ${latency.toFixed(0)} ms (median of ${ROUNDS}, the 100 ms coalescing window included) vs the manual loop (schema infer + generate, two commands) ${loop.toFixed(0)} ms (median of ${MANUAL_ROUNDS}), ratio ${(latency / loop).toFixed(2)}`,
  );
  console.log(
    idle === undefined
      ? "pmcp dev --observations idle CPU: not measured (no /proc here)"
      : `pmcp dev --observations idle, following ${TOOLS} logs and one server: ${idle.cpu} ms of CPU in ${(idle.wall / 1000).toFixed(1)} s, ${((idle.cpu / idle.wall) * 100).toFixed(2)} % of one core (the clock ticks every 10 ms)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await benchDevObservations();
