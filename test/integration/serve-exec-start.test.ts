import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, fixtureCommand, ROOT } from "../helpers/cli.js";
import { outputDir } from "../helpers/typescript.js";

// Each case holds its server back until it writes the release file: whatever the client is
// answered before that, it was answered without waiting for the server.

let dir: string;
let cases = 0;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await outputDir("serve-exec-start");
});
afterAll(() => {
  for (const child of children) child.kill();
});

/** A program's answer may wait for the whole start-up on a loaded machine: no request timeout of the SDK's. */
const PATIENT = { timeout: 600_000 };
const STOCK = 'return (await inv.getStock({ sku: "A1" })).quantity;';

function held(...extra: string[]): { release: string; args: string[] } {
  const release = join(dir, `release-${cases++}`);
  return {
    release,
    args: [CLI, "serve", "exec", "--stdio", fixtureCommand("held-server.mjs", release, ...extra), "--id", "inv", "--max-time-ms", "600000"],
  };
}

/** Resolves with the first line of `stream` that `pattern` matches. */
function lineOf(stream: Readable, pattern: RegExp): Promise<string> {
  return new Promise((resolve) => {
    createInterface({ input: stream }).on("line", (line) => {
      if (pattern.test(line)) resolve(line);
    });
  });
}

function textOf(result: Awaited<ReturnType<Client["callTool"]>>): string {
  const [block] = result.content as { type: string; text: string }[];
  return block?.text ?? "";
}

describe("pmcp serve exec answers before its servers have started", () => {
  it.each([
    ["a 2025-era client (initialize)", "legacy", "2025-11-25"],
    ["a 2026-07-28 client (server/discover)", { pin: "2026-07-28" }, "2026-07-28"],
  ] as const)(
    "%s is answered and lists the tools while the server is held back, and gets its program's answer once it is released",
    async (_name, mode, version) => {
      const { release, args } = held();
      const agent = new Client({ name: "agent", version: "1.0.0" }, { versionNegotiation: { mode } });
      await agent.connect(new StdioClientTransport({ command: process.execPath, args, cwd: ROOT, stderr: "inherit" }));
      try {
        expect(existsSync(release)).toBe(false);
        expect(agent.getNegotiatedProtocolVersion()).toBe(version);
        // The tools list needs no server: the ids were given (--id), the descriptions hold only the limits.
        const { tools } = await agent.listTools();
        expect(tools.map((tool) => tool.name)).toEqual(["list_tools", "inspect_tool", "execute_program"]);
        expect(tools[0]?.inputSchema.properties).toMatchObject({ server: { description: "Only this server's tools: one of inv" } });
        expect(tools[2]?.description).toContain("[Start-up failed]");
        // A program whose own time runs out during the start is told that the start is what it waited for.
        const early = await agent.callTool({ name: "execute_program", arguments: { code: "return 1;", timeout_ms: 100 } });
        expect(early.isError).toBe(true);
        expect(textOf(early).split("\n")[0]).toBe(
          "[Timeout] the session was still starting (connecting to the servers and listing their tools) when the program's 100 ms ran out; nothing was run, and a later program need not wait as long",
        );
        expect(existsSync(release)).toBe(false);
        // Sent before the release: it waits for the start, within its own time.
        const program = agent.callTool({ name: "execute_program", arguments: { code: STOCK } }, PATIENT);
        const listing = agent.callTool({ name: "list_tools", arguments: {} }, PATIENT);
        await writeFile(release, "");
        const answer = await program;
        expect(answer.isError).toBeUndefined();
        expect(answer.structuredContent).toMatchObject({ result: 7, logs: [], calls: [{ server: "inv", tool: "get_stock", ok: true }] });
        expect((await listing).structuredContent).toMatchObject({ total: 2 });
      } finally {
        await agent.close();
      }
    },
    600_000,
  );

  it("listens over --http at once, and answers initialize there while the server is held back", async () => {
    const { release, args } = held();
    const child = spawn(process.execPath, [...args, "--http", "0"], { cwd: ROOT, stdio: ["ignore", "ignore", "pipe"] });
    children.push(child);
    const url = /^Serving exec on (\S+)$/.exec(await lineOf(child.stderr!, /^Serving exec on /))?.[1] ?? "";
    const agent = new Client({ name: "agent", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
    await agent.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      expect(existsSync(release)).toBe(false);
      expect((await agent.listTools()).tools.map((tool) => tool.name)).toEqual(["list_tools", "inspect_tool", "execute_program"]);
      const program = agent.callTool({ name: "execute_program", arguments: { code: STOCK } }, PATIENT);
      await writeFile(release, "");
      expect((await program).structuredContent).toMatchObject({ result: 7 });
    } finally {
      await agent.close();
      child.kill();
    }
  }, 600_000);

  it("answers every program with [Start-up failed] and one stderr line when a server cannot start, and keeps serving", async () => {
    const { release, args } = held("fail");
    await writeFile(release, "");
    const transport = new StdioClientTransport({ command: process.execPath, args, cwd: ROOT, stderr: "pipe" });
    const said = lineOf(transport.stderr as Readable, /^pmcp: serve exec could not start/);
    const agent = new Client({ name: "agent", version: "1.0.0" });
    await agent.connect(transport);
    try {
      const first = await agent.callTool({ name: "execute_program", arguments: { code: STOCK } }, PATIENT);
      expect(first.isError).toBe(true);
      const [tag, json] = textOf(first).split("\n");
      expect(tag).toMatch(/^\[Start-up failed\] server "inv": .+; nothing was run$/);
      expect(JSON.parse(json ?? "")).toMatchObject({ result: null, logs: [], calls: [] });
      expect(await said).toBe(
        `pmcp: serve exec could not start, and answers every program so: ${tag?.slice("[Start-up failed] ".length, -"; nothing was run".length)}`,
      );
      // The next program gets the same answer, and the tools that read the listing say why there is none.
      const second = await agent.callTool({ name: "execute_program", arguments: { code: "return 1;" } });
      expect(textOf(second).split("\n")[0]).toBe(tag);
      const listing = await agent.callTool({ name: "list_tools", arguments: {} });
      expect(listing.isError).toBe(true);
      expect(textOf(listing)).toBe(`the servers could not start: ${tag?.slice("[Start-up failed] ".length, -"; nothing was run".length)}`);
    } finally {
      await agent.close();
    }
  }, 600_000);
});
