import { type ChildProcessByStdio, spawn } from "node:child_process";
import { createInterface, type Interface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, fixtureCommand, ROOT } from "../helpers/cli.js";

// --max-output-bytes counts what execute_program sends: each answer's line on the wire, the text
// block and structuredContent both, stays within it.

const LIMIT = 2048;

let child: ChildProcessByStdio<Writable, Readable, null>;
let lines: Interface;
let nextId = 1;

/** Sends a request and resolves with its answer's line exactly as written to stdout. */
function request(method: string, params: object): Promise<string> {
  const id = nextId++;
  const answered = new Promise<string>((resolve) => {
    const onLine = (line: string) => {
      if ((JSON.parse(line) as { id?: number }).id !== id) return;
      lines.off("line", onLine);
      resolve(line);
    };
    lines.on("line", onLine);
  });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`);
  return answered;
}

async function execute(code: string): Promise<{ wire: string; text: string; structured: { result: unknown; logs: string[] } }> {
  const wire = await request("tools/call", { name: "execute_program", arguments: { code } });
  const { result } = JSON.parse(wire) as {
    result: { content: { text: string }[]; structuredContent: { result: unknown; logs: string[] } };
  };
  return { wire, text: result.content[0]?.text ?? "", structured: result.structuredContent };
}

beforeAll(async () => {
  child = spawn(
    process.execPath,
    [CLI, "serve", "exec", "--stdio", fixtureCommand("typed-server.mjs"), "--id", "inv", "--max-output-bytes", String(LIMIT)],
    { cwd: ROOT, stdio: ["pipe", "pipe", "inherit"] },
  );
  lines = createInterface({ input: child.stdout });
  await request("initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "wire", version: "1.0.0" } });
  child.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" })}\n`);
}, 120_000);
afterAll(() => child?.kill());

describe("serve exec --max-output-bytes", () => {
  it("sends a result that fits once but not twice as [Output limit], its line on the wire within the limit", async () => {
    const { wire, text, structured } = await execute('return "x".repeat(1500);');
    expect(Buffer.byteLength(wire)).toBeLessThanOrEqual(LIMIT);
    expect(text.split("\n")[0]).toMatch(/^\[Output limit\] the answer is \d+ bytes, more than 2048; cut to fit 2048 bytes: the result$/);
    expect(structured.result).toMatch(/^x+…\[\d+ characters left out\]$/);
  }, 120_000);

  it("keeps a result of quotes, escaped once in structuredContent and twice in the text, within the limit", async () => {
    const { wire, structured } = await execute("return { quotes: '\"'.repeat(5000) };");
    expect(Buffer.byteLength(wire)).toBeLessThanOrEqual(LIMIT);
    expect(structured.result).toMatchObject({ quotes: expect.stringMatching(/^"+…\[\d+ characters left out\]$/) });
  }, 120_000);

  it("cuts the logs with a line that says how many were left out, and keeps the result", async () => {
    const { wire, text, structured } = await execute("for (let i = 0; i < 150; i++) console.log(`line ${i}`); return 1;");
    expect(Buffer.byteLength(wire)).toBeLessThanOrEqual(LIMIT);
    expect(text.split("\n")[0]).toMatch(/; cut to fit 2048 bytes: the logs$/);
    expect(structured.result).toBe(1);
    expect(structured.logs.at(-1)).toMatch(/^…\[\d+ of 150 log lines left out\]$/);
    expect(structured.logs.slice(0, 3)).toEqual(["line 0", "line 1", "line 2"]);
  }, 120_000);

  it("sends an answer that fits as it is", async () => {
    const { text, structured } = await execute('return (await inv.getStock({ sku: "A1" })).quantity;');
    expect(text.split("\n")[0]).toBe("[Script executed successfully]");
    expect(structured.result).toBe(7);
  }, 120_000);
});
