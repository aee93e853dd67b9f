import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { observationPath } from "@pmcp-codegen/runtime";
import { formatObservationLog } from "@pmcp-codegen/runtime/internal";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, FIXTURES, ROOT, runCli } from "./helpers/cli.js";
import { outputDir } from "./helpers/typescript.js";

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
async function learningServer(observations: string, ...flags: string[]): Promise<Client> {
  const client = new Client({ name: "learn-test", version: "1.0.0" });
  const server = `${process.execPath} ${join(FIXTURES, "learning-server.mjs")}`;
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "exec", "--stdio", server, "--id", "learning", "--learn", "--observe", observations, ...flags],
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
  it("learns every other tool when one answers 1,000 levels deep", async () => {
    const client = await learningServer(join(dir, "deep-tool"));
    try {
      const calls = "await learning.deep();\nfor (let i = 0; i < 10; i++) await learning.count();\nreturn 1;";
      expect(await run(client, calls)).toEqual([OK, 1]);
      // Typed by what it answers, in `.value`, beside the result as it came.
      expect(await run(client, "const counted = await learning.count();\nreturn [counted.value.count, counted.text];")).toEqual([
        OK,
        [11, '{"count":11}'],
      ]);
    } finally {
      await client.close();
    }
  });

  it("runs a program reading .text each time, before the tool's type is learned, once learned from one answer, and after it turns to prose", async () => {
    const client = await learningServer(join(dir, "news-text"));
    try {
      const program = "return (await learning.news()).text;";
      expect(await run(client, program)).toEqual([OK, '{"a":1}']);
      expect(await run(client, program)).toEqual([OK, "no data today"]);
      expect(await run(client, program)).toEqual([OK, "no data today"]);
    } finally {
      await client.close();
    }
  });

  it("gives a prose answer to a type learned from JSON no value but its text, then types the tool by its content again", async () => {
    const client = await learningServer(join(dir, "news-value"));
    try {
      expect(await run(client, "return (await learning.news()).text;")).toEqual([OK, '{"a":1}']);
      // Learned from one observation: { a: number }; the prose answer is no failure: `.value` is undefined, `.text` holds it.
      const read = "const news = await learning.news();\nreturn [news.value === undefined, news.text, typeof news.get];";
      expect(await run(client, read)).toEqual([OK, [true, "no data today", "function"]]);
      // Seen answering without JSON: quality none, rt.ToolResult again, which has no `.value`.
      expect(await run(client, "return (await learning.news()).text;")).toEqual([OK, "no data today"]);
      const [tag] = await run(client, "return (await learning.news()).value;");
      expect(tag).toBe("[Type error] 1 problem; nothing was run");
    } finally {
      await client.close();
    }
  });
});
