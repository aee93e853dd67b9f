import { execFile } from "node:child_process";
import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { CompositionClient, TransportError } from "@pmcp-codegen/runtime";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { FIXTURES } from "../helpers/cli.js";
import { alive } from "../helpers/processes.js";
import { missing } from "../helpers/system-tools.js";

const execFileAsync = promisify(execFile);
const SERVER = join(FIXTURES, "detaching-server.mjs");
const Pid = z.object({ pid: z.number() });

// The helpers the servers leave behind, in a session of their own: ended here, whatever the tests did.
const helperFiles: string[] = [];
afterAll(async () => {
  for (const file of helperFiles) {
    const pids = (await readFile(file, "utf8").catch(() => "")).split("\n").filter(Boolean).map(Number);
    for (const pid of pids.filter(alive)) process.kill(pid, "SIGKILL");
  }
});

async function detachingClient(): Promise<CompositionClient> {
  const dir = await mkdtemp(join(tmpdir(), "pmcp-exit-"));
  const env = { HELPERS_FILE: join(dir, "helpers"), MARKER_FILE: join(dir, "marker") };
  helperFiles.push(env.HELPERS_FILE);
  // A call's own timeout is long: a call that waits for it is the defect.
  return new CompositionClient({ servers: { d: { command: process.execPath, args: [SERVER], env } }, timeoutMs: 60_000 });
}

describe("a stdio server that exits while a process of another session holds its stdout", () => {
  it("fails the call in flight as a TransportError at its exit, and the next call starts it again", async () => {
    const client = await detachingClient();
    try {
      const first = await client.callTool({ server: "d", tool: "pid", parse: Pid });
      const error = await client.callTool({ server: "d", tool: "detach", parse: Pid }).then(
        () => undefined,
        (reason: unknown) => reason,
      );
      expect(error).toBeInstanceOf(TransportError);
      const next = await client.callTool({ server: "d", tool: "pid", parse: Pid });
      expect([alive(first.pid), next.pid === first.pid]).toEqual([false, false]);
    } finally {
      await client.close();
    }
  });

  it("retries a read-only call on a new connection", async () => {
    const client = await detachingClient();
    try {
      const first = await client.callTool({ server: "d", tool: "pid", parse: Pid });
      const retried = await client.callTool({ server: "d", tool: "detach_once", parse: Pid, retryable: true });
      expect(retried.pid).not.toBe(first.pid);
    } finally {
      await client.close();
    }
  });
});

const namespace = await missing("pid-namespace");

describe.skipIf(namespace !== undefined)(
  `a group seen empty is never signalled, though its id is another group's now${namespace === undefined ? "" : ` (${namespace})`}`,
  () => {
    it.each(["close", "exit"])("not by %s", async (mode) => {
      const { stdout } = await execFileAsync(
        "unshare",
        ["--pid", "--fork", "--mount-proc", process.execPath, join(FIXTURES, "pid-reuse.mjs"), "observe", mode],
        { timeout: 60_000 },
      );
      expect(JSON.parse(stdout.trim().split("\n").at(-1)!)).toEqual({ failure: "TransportError", reused: true, survived: true });
    });
  },
);
