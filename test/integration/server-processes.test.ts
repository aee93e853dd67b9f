import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { CLI, FIXTURES, ROOT } from "../helpers/cli.js";
import { alive } from "../helpers/processes.js";

// Every server here is started as `npx` starts one: through a wrapper (npx-like.mjs) that keeps the
// real server as its grandchild and passes on no signal, and the server ignores the end of its input
// (stubborn-server.mjs). Killing only the process started, as the SDK's transport does, left the
// server running and the caller waiting on its pipes.

const SERVER_ARGS = [join(FIXTURES, "npx-like.mjs"), join(FIXTURES, "stubborn-server.mjs")];
const SERVER_LINE = [process.execPath, ...SERVER_ARGS].map((word) => JSON.stringify(word)).join(" ");

const started: ChildProcess[] = [];
const pidsFiles: string[] = [];
// A failing test leaves its servers running: they are ended here, not left to the next run. After all
// tests, not each: they run at once (most of their time is a stop's grace periods).
afterAll(async () => {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  for (const file of pidsFiles.splice(0)) {
    const lines = await readFile(file, "utf8").catch(() => "");
    for (const line of lines.split("\n").filter((text) => text !== "")) {
      const { server, parent } = JSON.parse(line) as Pids;
      for (const pid of [server, parent].filter(alive)) process.kill(pid, "SIGKILL");
    }
  }
});

interface Pids {
  server: number;
  /** The wrapper: the process the caller started, leader of the server's process group. */
  parent: number;
}

async function scratch(): Promise<{ dir: string; pidsFile: string }> {
  const dir = await mkdtemp(join(tmpdir(), "pmcp-processes-"));
  const pidsFile = join(dir, "pids.jsonl");
  pidsFiles.push(pidsFile);
  return { dir, pidsFile };
}

/** The pids of every stubborn server started so far, once there are `count`. */
function pidsIn(file: string, count = 1): Promise<Pids[]> {
  return vi.waitFor(
    async () => {
      const lines = (await readFile(file, "utf8")).split("\n").filter((line) => line !== "");
      expect(lines.length).toBeGreaterThanOrEqual(count);
      return lines.map((line) => JSON.parse(line) as Pids);
    },
    { timeout: 60_000, interval: 50 },
  );
}

/** Neither the servers, nor their wrappers, nor anything else of the groups the wrappers lead. */
function expectAllGone(servers: readonly Pids[]): void {
  const living = servers.flatMap(({ server, parent }) => [server, parent, -parent].filter(alive));
  expect(living).toEqual([]);
}

/** The same, once the kernel has ended them: a process that exits can only send SIGKILL, not wait for it to work. */
function allGoneSoon(servers: readonly Pids[]): Promise<void> {
  return vi.waitFor(() => expectAllGone(servers), { timeout: 30_000, interval: 50 });
}

function start(args: readonly string[], env: Record<string, string>, cwd = ROOT) {
  const child = spawn(process.execPath, args, { cwd, env: { ...process.env, ...env }, stdio: ["pipe", "pipe", "pipe"] });
  started.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString("utf8");
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  const exited = once(child, "exit").then(([code, signal]) => ({ code: code as number | null, signal: signal as string | null }));
  return { child, exited, stdout: () => stdout, stderr: () => stderr };
}

/** A script using the runtime as an application would, with one stdio server started through the wrapper. */
function script(body: string, pidsFile: string, env: Record<string, string> = {}) {
  const servers = { stubborn: { command: process.execPath, args: SERVER_ARGS, env: { PIDS_FILE: pidsFile, ...env } } };
  const code = `import { CompositionClient, z } from "@pmcp-codegen/runtime";
const client = new CompositionClient({ servers: ${JSON.stringify(servers)} });
const pid = (options) => client.callTool({ server: "stubborn", tool: "pid", parse: z.object({ pid: z.number() }) }, options);
${body}`;
  return start(["--input-type=module", "-e", code], {});
}

describe.concurrent("a stdio server started through a wrapper, as npx starts one", () => {
  it("is stopped whole by CompositionClient.close(), SIGKILL last, and the caller then ends by itself", async () => {
    const { pidsFile } = await scratch();
    const run = script('await pid();\nawait client.close();\nconsole.log("closed");', pidsFile, { IGNORE_SIGTERM: "1" });
    const pids = await pidsIn(pidsFile);
    await vi.waitFor(() => expect(run.stdout()).toBe("closed\n"), { timeout: 60_000, interval: 50 });
    expectAllGone(pids);
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expect(run.stderr()).toBe("");
  });

  it("is killed when the application exits without closing the client", async () => {
    const { pidsFile } = await scratch();
    const run = script("await pid();\nprocess.exit(3);", pidsFile);
    const pids = await pidsIn(pidsFile);
    expect(await run.exited).toEqual({ code: 3, signal: null });
    await allGoneSoon(pids);
  });

  it("is killed when the application dies of SIGINT it does not handle, which still ends it as SIGINT does", async () => {
    const { pidsFile } = await scratch();
    const run = script(
      'await pid();\nconsole.log("called");\nawait client.callTool({ server: "stubborn", tool: "slow", args: { ms: 120000 }, parse: z.unknown() });',
      pidsFile,
    );
    const pids = await pidsIn(pidsFile);
    await vi.waitFor(() => expect(run.stdout()).toBe("called\n"), { timeout: 60_000, interval: 50 });
    run.child.kill("SIGINT");
    expect(await run.exited).toEqual({ code: null, signal: "SIGINT" });
    await allGoneSoon(pids);
  });

  // With Node's default for SIGINT, pmcp ended at once and its stdio server, busy with a slow call, lived on as an orphan.
  it("is stopped by pmcp exec on SIGINT during a call, which then exits 130", async () => {
    const { dir, pidsFile } = await scratch();
    const observations = join(dir, "observations");
    const args = [CLI, "exec", "-", "--observe", observations, "--stdio", SERVER_LINE, "--id", "stubborn"];
    const run = start(args, { PIDS_FILE: pidsFile });
    run.child.stdin.end("await stubborn.pid({});\nawait stubborn.slow({ ms: 120000 });\nreturn 1;");
    // Observed once answered: the program is then in its next call.
    await vi.waitFor(async () => expect(await readFile(join(observations, "stubborn", "pid.jsonl"), "utf8")).toMatch(/"pid"/), {
      timeout: 60_000,
      interval: 50,
    });
    run.child.kill("SIGINT");
    expect(await run.exited).toEqual({ code: 130, signal: null });
    expectAllGone(await pidsIn(pidsFile));
  });

  it("is stopped by pmcp serve exec --http on one SIGINT, which then exits 0", async () => {
    const { pidsFile } = await scratch();
    const run = start([CLI, "serve", "exec", "--http", "0", "--stdio", SERVER_LINE, "--id", "stubborn"], { PIDS_FILE: pidsFile });
    await vi.waitFor(() => expect(run.stderr()).toMatch(/^Serving exec on /m), { timeout: 60_000, interval: 50 });
    // Once the server runs: it starts after the line, and a signal before it would leave no pids to wait for.
    const pids = await pidsIn(pidsFile);
    run.child.kill("SIGINT");
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expectAllGone(pids);
  });

  it("is stopped once pmcp schema export has listed it", async () => {
    const { dir, pidsFile } = await scratch();
    const run = start([CLI, "schema", "export", "--quiet", "-o", join(dir, "bundle.json"), "--stdio", SERVER_LINE], {
      PIDS_FILE: pidsFile,
    });
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expectAllGone(await pidsIn(pidsFile));
  });

  it("is stopped by pmcp dev on SIGINT", async () => {
    const { dir, pidsFile } = await scratch();
    await writeFile(join(dir, "package.json"), "{}");
    const run = start([CLI, "dev", "--stdio", SERVER_LINE, "--id", "stubborn"], { PIDS_FILE: pidsFile }, dir);
    await vi.waitFor(() => expect(run.stdout()).toMatch(/^updated /m), { timeout: 60_000, interval: 50 });
    run.child.kill("SIGINT");
    expect(await run.exited).toEqual({ code: 0, signal: null });
    expectAllGone(await pidsIn(pidsFile));
  });
});

describe("pmcp exec with a bundle that records its server", () => {
  it("starts the server on the program's first call of it, and not at all for a program that calls none", async () => {
    const { dir, pidsFile } = await scratch();
    const bundle = join(dir, "bundle.json");
    // The same tools, from a server that writes no pids: exporting it starts no stubborn server.
    const behaviour = [process.execPath, join(FIXTURES, "behaviour-server.mjs")].map((word) => JSON.stringify(word)).join(" ");
    const exported = start([CLI, "schema", "export", "--quiet", "-o", bundle, "--stdio", behaviour, "--id", "stubborn"], {});
    expect(await exported.exited).toEqual({ code: 0, signal: null });
    const exec = (program: string) => {
      const run = start([CLI, "exec", "-", "--schema", bundle, "--stdio", SERVER_LINE, "--id", "stubborn"], { PIDS_FILE: pidsFile });
      run.child.stdin.end(program);
      return run;
    };

    const none = exec("return 1;");
    expect(await none.exited).toEqual({ code: 0, signal: null });
    expect(none.stdout()).toBe("1\n");
    expect(await readFile(pidsFile, "utf8").catch(() => "no server started")).toBe("no server started");

    const one = exec("const { pid } = await stubborn.pid({});\nreturn pid;");
    expect(await one.exited).toEqual({ code: 0, signal: null });
    const servers = await pidsIn(pidsFile);
    expect(servers.map((entry) => entry.server)).toEqual([Number(one.stdout())]);
    expectAllGone(servers);
  });
});
