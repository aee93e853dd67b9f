// A program's memory under many large answers: 1,000 calls to a tool answering 400 KiB of text, in
// one program under the default limits (64 MB heap), each answer read and dropped, against the same
// 1,000 calls made through the runtime's CompositionClient directly (as a generated client makes
// them). Each side runs in a fresh process against its own copy of the large-message fixture over
// stdio, so that its peak RSS is its own: the program's side holds the sandbox's WASM heap besides.
// The target, 2×: the program's side copies each answer twice more (the host's JSON to the worker,
// then into the VM) and parses it once more, in QuickJS.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { median, report } from "./lib.mjs";

const CALLS = 1000;
const MB = 400 / 1024;
const ROUNDS = 3;
const self = fileURLToPath(import.meta.url);
const fixture = fileURLToPath(new URL("../test/fixtures/large-message-server.mjs", import.meta.url));

/** In a fresh process: one side's 1,000 calls; prints its milliseconds, peak RSS and the characters read. */
async function child(side) {
  const { CompositionClient } = await import("@pmcp-codegen/runtime");
  const client = new CompositionClient({ servers: { large: { command: process.execPath, args: [fixture] } }, timeoutMs: 60_000 });
  const call = async (signal) => client.callToolForResult({ server: "large", tool: "big", args: { mb: MB } }, { signal });
  // Connected and warm before the clock starts, on both sides.
  await call();
  let chars = 0;
  let executor;
  const start = performance.now();
  if (side === "program") {
    const { QuickJsExecutor } = await import("../dist/exec/quickjs-executor.js");
    executor = new QuickJsExecutor({ workers: 1 });
    const outcome = await executor.run(
      {
        code: `let chars = 0;\nfor (let i = 0; i < ${CALLS}; i++) chars += (await large.big({ mb: ${MB} })).text.length;\nreturn chars;`,
        globals: { large: { big: { server: "large", tool: "big", returns: "content" } } },
      },
      { call: async (_server, _tool, _args, signal) => (await call(signal)).raw },
      { maxCalls: CALLS, timeoutMs: 600_000 },
    );
    if (!outcome.ok) throw new Error(`${outcome.kind}: ${outcome.message}`);
    chars = outcome.result;
  } else {
    for (let i = 0; i < CALLS; i++) chars += (await call()).text.length;
  }
  const ms = performance.now() - start;
  await executor?.close();
  await client.close();
  // maxRSS is in KiB.
  console.log(JSON.stringify({ ms, peakMb: process.resourceUsage().maxRSS / 1024, chars }));
}

export async function benchExecMemory() {
  const run = (side) => JSON.parse(execFileSync(process.execPath, [self, "--child", side], { encoding: "utf8" }));
  const program = [];
  const direct = [];
  const ratios = [];
  for (let round = 0; round < ROUNDS; round++) {
    const ours = run("program");
    const peer = run("direct");
    if (ours.chars !== peer.chars) throw new Error(`the program read ${ours.chars} characters, the direct calls ${peer.chars}`);
    program.push(ours);
    direct.push(peer);
    ratios.push(ours.ms / peer.ms);
  }
  const pick = (samples, key) => median(samples.map((sample) => sample[key]));
  report(
    `exec memory: ${CALLS} calls × 400 KiB in one program (default 64 MB heap)`,
    pick(program, "ms"),
    pick(direct, "ms"),
    `${CALLS} CompositionClient calls`,
    2,
    "ms",
    median(ratios),
  );
  console.log(
    `  peak RSS of the process: program ${pick(program, "peakMb").toFixed(0)} MB (sandbox heap included) vs direct ${pick(direct, "peakMb").toFixed(0)} MB; ${(pick(program, "chars") / 2 ** 20).toFixed(0)} MiB of answers read`,
  );
}

if (process.argv[2] === "--child") await child(process.argv[3]);
