import { spawn } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { observationPath } from "@pmcp-codegen/runtime";
import { formatObservationLog } from "@pmcp-codegen/runtime/internal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, FIXTURES, ROOT, runCli } from "../helpers/cli.js";
import { outputDir } from "../helpers/typescript.js";

let dir: string;

beforeAll(async () => {
  dir = await outputDir("learn");
});

/** `{"a":{"a":…1}}`, 1,000 objects deep: quicktype overflowed its stack on it. */
const DEEP = JSON.parse(`${'{"a":'.repeat(1000)}1${"}".repeat(1000)}`);

describe("pmcp schema infer", () => {
  it("writes a block for a sample 1,000 levels deep, saying it was cut at 64 levels", async () => {
    const bundle = join(dir, "deep-bundle.json");
    await writeFile(
      bundle,
      JSON.stringify({ version: "1.0", servers: [{ id: "s", tools: [{ name: "t", inputSchema: { type: "object" } }] }] }),
    );
    const logs = join(dir, "deep-logs");
    const path = observationPath(logs, "s", "t");
    await mkdir(dirname(path), { recursive: true });
    const header = {
      format: "pmcp-observations/1" as const,
      server: "s",
      tool: "t",
      seen: 1,
      firstSeen: "a",
      lastSeen: "a",
      redacted: false,
    };
    await writeFile(path, formatObservationLog({ header, samples: [{ at: "a", value: DEEP }] }));
    const result = await runCli(["schema", "infer", "--schema", bundle, "--observations", logs]);
    expect([result.code, result.stderr]).toEqual([0, ""]);
    expect(result.stdout.split("\n")[0]).toBe(
      "inferred s/t: 1 observation, quality low (consistency 1); samples made to fit: 1 nested past 64 levels",
    );
    const written = JSON.parse(await readFile(bundle, "utf8")) as { servers: { inferred: { capped: unknown }[] }[] };
    expect(written.servers[0]?.inferred[0]?.capped).toEqual({ depth: 1 });
  });
});

/** `serve exec --learn` over the learning fixture, with its other flags. */
async function learningServer(...flags: string[]): Promise<Client> {
  const client = new Client({ name: "learn-test", version: "1.0.0" });
  const server = `${process.execPath} ${join(FIXTURES, "learning-server.mjs")}`;
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "exec", "--stdio", server, "--id", "learning", "--learn", ...flags],
      cwd: ROOT,
      stderr: "pipe",
    }),
  );
  return client;
}

/** The first line of an execute_program answer, and its result. */
async function run(client: Client, code: string): Promise<[string | undefined, unknown]> {
  const answer = (await client.callTool({ name: "execute_program", arguments: { code } }, undefined, { timeout: 120_000 })) as unknown as {
    content: { text: string }[];
    structuredContent: { result: unknown };
  };
  return [answer.content[0]?.text.split("\n")[0], answer.structuredContent.result];
}

const OK = "[Script executed successfully]";

describe("pmcp serve exec --learn", () => {
  // One session for the tests that use the defaults: each calls tools of its own, whose counts start at its first call.
  let shared: Client;
  beforeAll(async () => {
    shared = await learningServer("--observe", join(dir, "defaults"));
  });
  afterAll(() => shared.close());

  it("learns every other tool when one answers 1,000 levels deep", async () => {
    const calls = "await learning.deep();\nfor (let i = 0; i < 10; i++) await learning.count();\nreturn 1;";
    expect(await run(shared, calls)).toEqual([OK, 1]);
    // Typed by what it answers, in `.value`, beside the result as it came.
    expect(await run(shared, "const counted = await learning.count();\nreturn [counted.value.count, counted.text];")).toEqual([
      OK,
      [11, '{"count":11}'],
    ]);
  });

  // One server for both: news answers JSON once, then prose; the type learned from the first answer stays.
  it("runs a program reading .text each time, before the tool's type is learned, once learned from one answer, and after it turns to prose; gives a prose answer to the type learned from JSON no value but its text, and keeps the type: learning never takes a type back", async () => {
    const program = "return (await learning.news()).text;";
    expect(await run(shared, program)).toEqual([OK, '{"a":1}']);
    // Learned from one observation: { a: number }; the prose answer is no failure: `.value` is undefined, `.text` holds it.
    expect(await run(shared, program)).toEqual([OK, "no data today"]);
    const read = "const news = await learning.news();\nreturn [news.value === undefined, news.text, typeof news.get];";
    expect(await run(shared, read)).toEqual([OK, [true, "no data today", "function"]]);
    expect(await run(shared, program)).toEqual([OK, "no data today"]);
    // Seen answering without JSON too, it keeps its type: the program that read `.value` still compiles, and reads undefined.
    expect(await run(shared, "const news = await learning.news();\nreturn [news.value?.a ?? null, news.text];")).toEqual([
      OK,
      [null, "no data today"],
    ]);
  });
});

/** The learning fixture's tools as it lists them, under the id `learning`. */
const LEARNING_TOOLS = ["count", "deep", "news"].map((name) => ({
  name,
  description: `The ${name} tool.`,
  inputSchema: { type: "object", properties: {} },
}));

/** A block as `schema infer` writes it, for the blocks the session must leave as they are. */
function block(tool: string, seen: number) {
  return {
    tool,
    schema: { type: "object", properties: { a: { type: "integer" } }, required: ["a"] },
    observations: seen,
    seen,
    firstSeen: "2026-01-01T00:00:00.000Z",
    lastSeen: "2026-01-01T00:00:00.000Z",
    redacted: false,
    consistency: 1,
    quality: "low",
    fields: [{ path: "a", types: { integer: seen } }],
  };
}

describe("pmcp serve exec --learn with a bundle", () => {
  it("writes what it learned into the bundle, and a second session types the tool by it from its first program", async () => {
    const folder = join(dir, "kept");
    await mkdir(folder);
    const path = join(folder, "bundle.json");
    const learning = { id: "learning", tools: LEARNING_TOOLS, inferred: [block("news", 1)] };
    const other = { id: "other", tools: [{ name: "t", inputSchema: { type: "object" } }], inferred: [block("t", 3)] };
    const original = { version: "1.0", servers: [learning, other] };
    await writeFile(path, `${JSON.stringify(original, null, 2)}\n`);

    const first = await learningServer("--schema", path);
    try {
      expect(await run(first, "for (let i = 0; i < 10; i++) await learning.count();\nreturn 1;")).toEqual([OK, 1]);
    } finally {
      await first.close();
    }
    const text = await readFile(path, "utf8");
    const written = JSON.parse(text) as { servers: { inferred: Record<string, unknown>[] }[] };
    const [count, news] = written.servers[0]!.inferred;
    expect(count).toEqual({
      tool: "count",
      schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
      observations: 10,
      seen: 10,
      firstSeen: expect.any(String),
      lastSeen: expect.any(String),
      redacted: false,
      consistency: 1,
      quality: "medium",
      fields: [
        { path: "", types: { object: 10 } },
        { path: "/count", presence: 1, types: { integer: 10 } },
      ],
    });
    // Every other byte as it was: only the learned block was added, in its place by tool name.
    const expected = { ...original, servers: [{ ...learning, inferred: [count, news] }, other] };
    expect(text).toBe(`${JSON.stringify(expected, null, 2)}\n`);
    expect(news).toEqual(block("news", 1));
    // Written atomically: no temp file nor lock left beside it.
    expect(await readdir(folder)).toEqual(["bundle.json"]);

    const second = await learningServer("--schema", path);
    try {
      const inspected = (await second.callTool({ name: "inspect_tool", arguments: { tool_name: "learning/count" } })) as unknown as {
        structuredContent: { program: unknown };
      };
      expect(inspected.structuredContent.program).toEqual({
        signature: "learning.count(args?: CountArgs): Promise<rt.ParsedResult<CountResult>>",
        types: "type CountArgs = { [key: string]: unknown };\ntype CountResult = {\n  count: number;\n};",
      });
      // The server started afresh: its count is 1 again.
      expect(await run(second, "return (await learning.count()).value.count;")).toEqual([OK, 1]);
      // Learned here from one observation, count is no match for the bundle's ten: the type, and the file, stay.
      expect(await run(second, "const n: number = (await learning.count()).value.count;\nreturn n;")).toEqual([OK, 2]);
    } finally {
      await second.close();
    }
    expect(await readFile(path, "utf8")).toBe(text);
  });
});

/** The first learning warning `serve exec` prints at start-up, the process then stopped. */
function firstLearnWarning(args: readonly string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, "serve", "exec", "--learn", ...args], { cwd, stdio: ["pipe", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
      const line = stderr.split("\n").find((candidate) => candidate.startsWith("warning: learned types"));
      if (line !== undefined && stderr.endsWith("\n")) {
        child.kill();
        resolve(line);
      }
    });
    child.on("exit", () => reject(new Error(`no learning warning:\n${stderr}`)));
  });
}

describe("pmcp serve exec --learn without one bundle file", () => {
  it("says once at start that learning stays in memory, and why", async () => {
    const folder = join(dir, "no-single-bundle");
    await mkdir(folder);
    const server = `${process.execPath} ${join(FIXTURES, "learning-server.mjs")}`;
    const bundle = (id: string) => `${JSON.stringify({ version: "1.0", servers: [{ id, tools: LEARNING_TOOLS }] })}\n`;
    await writeFile(join(folder, "a.json"), bundle("learning"));
    await writeFile(join(folder, "b.json"), bundle("other"));
    expect(await firstLearnWarning(["--stdio", server, "--id", "learning", "--schema", "a.json", "--schema", "b.json"], folder)).toBe(
      "warning: learned types stay in memory: a.json, b.json is 2 schema files, not one bundle (pmcp schema infer -o <bundle> writes one)",
    );
    await writeFile(
      join(folder, "pmcp.config.json"),
      JSON.stringify({ servers: { learning: { command: process.execPath, args: [join(FIXTURES, "learning-server.mjs")] } } }),
    );
    expect(await firstLearnWarning([], folder)).toBe(
      "warning: learned types stay in memory: pmcp.config's bundle schemas/mcp-bundle.json does not exist (pmcp schema export writes it)",
    );
  });
});
