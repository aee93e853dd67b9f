import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { beforeAll, describe, expect, it } from "vitest";
import { CLI, FIXTURES, ROOT, runCli, runInProcess } from "../helpers/cli.js";
import { outputDir } from "../helpers/typescript.js";

const sources = ["--stdio", `${process.execPath} ${join(FIXTURES, "behaviour-server.mjs")}`, "--id", "behaviour"];

/** Logs with control characters: escaped on stderr, as they are under --json. */
const CONTROL_LOGS = 'console.log("\\u001b[31mred\\u0007\\rover");\nconsole.warn("tab\\there");';

let dir: string;
/** `sources` typed by their bundle: a run starts the server on its first call and lists nothing, which is another test's subject. */
let typed: string[];

beforeAll(async () => {
  dir = await outputDir("exec-cli");
  const bundle = join(dir, "behaviour-bundle.json");
  const exported = await runCli(["schema", "export", ...sources, "-o", bundle, "--quiet"]);
  if (exported.code !== 0) throw new Error(exported.stderr);
  typed = [...sources, "--schema", bundle];
});

describe("pmcp exec", () => {
  it("runs a file, printing the result JSON on stdout and the logs on stderr", async () => {
    const file = join(dir, "program.ts");
    await writeFile(file, 'const item = await behaviour.getItem({ id: "a" });\nconsole.log("got", item.id);\nreturn item;');
    const run = await runCli(["exec", file, ...sources]);
    expect(run).toMatchObject({ code: 0, stderr: "got a\n" });
    expect(JSON.parse(run.stdout)).toEqual({ id: "a", count: 3, tags: ["a"] });
  });

  // Read as UTF-8 regardless, "café" in Latin-1 ran as "caf\uFFFD": a program other than the one written.
  it("refuses a program that is not UTF-8 text, from a file or stdin, with exit 2 and nothing run", async () => {
    const file = join(dir, "latin1.ts");
    const latin1 = Buffer.from('return "caf\xe9";', "latin1");
    await writeFile(file, latin1);
    const run = await runCli(["exec", file, ...sources]);
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr.split("\n")[0]).toBe(`pmcp: ${file}: not UTF-8 text`);
    const piped = await runStdin(["exec", "-", ...typed], latin1);
    expect(piped).toMatchObject({ code: 2, stdout: "" });
    expect(piped.stderr.split("\n")[0]).toBe("pmcp: <stdin>: not UTF-8 text");
  });

  // Logs carry tool results; written raw, a server's text could recolour, retitle or overwrite the terminal.
  it("writes a program's logs to stderr with control characters escaped (--json keeps them as they are, in its own case)", async () => {
    const run = await runStdin(["exec", "-", ...typed], `${CONTROL_LOGS}\nreturn 1;`);
    expect(run).toMatchObject({ code: 0, stdout: "1\n", stderr: "\\u001b[31mred\\u0007\\u000dover\nwarn: tab\there\n" });
  });

  it("runs stdin with -, and exits 1 with the tagged error and each diagnostic as file:line:col", async () => {
    const run = await runStdin(["exec", "-", ...typed], 'const item = await behaviour.getItem({ id: "a" });\nreturn item.cont;');
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr.split("\n")).toEqual([
      "pmcp: [Type error] 1 problem; nothing was run",
      "pmcp: <stdin>:2:13 Property 'cont' does not exist on type 'Item'. Did you mean 'count'?",
      "",
    ]);
    const thrown = await runStdin(["exec", "-", ...typed], 'throw new Error("boom");');
    expect(thrown).toMatchObject({ code: 1, stderr: "pmcp: [Uncaught error] <stdin>:1:1 Error: boom\n" });
    // Types, blank lines and comments are gone from the JavaScript that ran: the source map gives the agent's own line.
    const late = await runStdin(
      ["exec", "-", ...typed],
      "type Box = { item: { id: string } | null };\n\n// none yet\nconst box: Box = { item: null };\nreturn box.item!.id;",
    );
    expect(late).toMatchObject({
      code: 1,
      stderr: "pmcp: [Uncaught error] <stdin>:5:1 TypeError: cannot read property 'id' of null\n",
    });
    // A failed tool call names the statement of the call that failed, not the prelude's.
    const failed = await runStdin(
      ["exec", "-", ...typed],
      'const ok = await behaviour.getItem({ id: "a" });\n\nawait behaviour.fail({});\nreturn ok;',
    );
    expect(failed).toMatchObject({
      code: 1,
      stderr: "pmcp: [Uncaught error] <stdin>:3:1 ToolCallError: behaviour/fail: warehouse offline (2 tool calls made)\n",
    });
  });

  // QuickJS places an error at the last operand it evaluated: inside the template string here, and
  // `(line 3, column 71)` came without the file's name, while type errors came as file:line:col.
  it("places a run-time error at the start of the innermost statement that raised it, as file:line:col", async () => {
    const file = join(dir, "throws.ts");
    await writeFile(file, "const x = [1, 2];\nif (x.length > 1)\n  throw new Error(`too many: ${x.length} items, ${JSON.stringify(x)}`);");
    expect(await runCli(["exec", file, ...typed])).toMatchObject({
      code: 1,
      stderr: `pmcp: [Uncaught error] ${file}:3:3 Error: too many: 2 items, [1,2]\n`,
    });
    // Inside a callback: its own statement, an arrow's expression body counting as one.
    const nested = await runStdin(
      ["exec", "-", "--json", ...typed],
      'const all = await Promise.all(\n  ["a", "b"].map((id) =>\n    id === "b" ? behaviour.fail({}) : behaviour.getItem({ id }),\n  ),\n);\nreturn all;',
    );
    expect(JSON.parse(nested.stdout)).toMatchObject({
      ok: false,
      message: "ToolCallError: behaviour/fail: warehouse offline",
      at: { line: 3, column: 5 },
    });
  });

  // TypeScript's decorator helpers come before the wrapper function: the body was cut inside them,
  // and a program that passed its type-check failed with `SyntaxError … line 6`, three lines long.
  it("runs a program with decorators, and places its errors in the program's own lines", async () => {
    const decorated = [
      "function twice(method: () => number, context: ClassMethodDecoratorContext) { return () => method() * 2; }",
      'class Counter { @twice next() { return 21; } @twice fail(): number { throw new Error("no count"); } }',
      "console.log(new Counter().next());",
      "return new Counter().fail();",
    ];
    // One run for both: the decorated method's answer logged, then the decorated throw placed.
    expect(await runStdin(["exec", "-", ...typed], decorated.join("\n"))).toMatchObject({
      code: 1,
      stdout: "",
      stderr: "42\npmcp: [Uncaught error] <stdin>:2:70 Error: no count\n",
    });
  });

  // 33,000 diagnostics made 2.1 MB of [Type error] text.
  it("lists at most 50 problems, then a line saying how many more there are, also under --json", async () => {
    const program = "a;\n".repeat(33_000);
    const run = await runStdin(["exec", "-", ...typed], program);
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n")).toEqual([
      "pmcp: [Type error] 33000 problems; nothing was run",
      ...Array.from({ length: 50 }, (_, i) => `pmcp: <stdin>:${i + 1}:1 Cannot find name 'a'. The globals are behaviour, console.`),
      "pmcp: … 32950 more problems not listed (at most 50 are, with 16384 bytes of messages)",
      "",
    ]);
    // Under --json, after a first line refused for its own reason: the whole refusal, its first diagnostic exactly.
    const refused = await runStdin(["exec", "-", "--json", ...typed], `return nope;\n${program}`);
    expect(refused.code).toBe(1);
    const json = JSON.parse(refused.stdout) as { diagnostics: unknown[]; omitted: number };
    expect(json).toMatchObject({
      ok: false,
      tag: "[Type error]",
      message: "33001 problems; nothing was run",
      result: null,
      calls: [],
    });
    expect(json.diagnostics[0]).toEqual({
      line: 1,
      column: 8,
      code: 2304,
      message: "Cannot find name 'nope'. The globals are behaviour, console.",
    });
    expect([json.diagnostics.length, json.omitted]).toEqual([50, 32_951]);
  });

  // Node's mkdir({ recursive: true }) never settles in /proc: pmcp exec printed its result and spun forever.
  it("prints the whole outcome as JSON with --json, its logs as they are, and what an output limit kept; records nothing, with one warning, into an --observe folder that cannot be made", async () => {
    const unmakeable = existsSync("/proc/self") ? ["--observe", "/proc/pmcp-nope"] : [];
    const ok = await runStdin(
      ["exec", "-", "--json", ...unmakeable, ...typed],
      `${CONTROL_LOGS}\nreturn (await behaviour.getItem({ id: "a" })).id;`,
    );
    expect(ok.code).toBe(0);
    expect(ok.stderr).toBe(
      unmakeable.length === 0
        ? ""
        : "warning: observations of behaviour/get_item not recorded: ENOENT: no such file or directory, mkdir '/proc/pmcp-nope'\n",
    );
    const printed = JSON.parse(ok.stdout) as { calls: { durationMs: number }[]; durationMs: number };
    expect({ ...printed, durationMs: 0, calls: printed.calls.map((call) => ({ ...call, durationMs: 0 })) }).toEqual({
      ok: true,
      result: "a",
      logs: ["\u001b[31mred\u0007\rover", "warn: tab\there"],
      calls: [{ server: "behaviour", tool: "get_item", durationMs: 0, ok: true }],
      durationMs: 0,
    });
    const cut = await runStdin(["exec", "-", "--max-output-bytes", "1024", ...typed], 'return "x".repeat(5000);');
    expect(cut.code).toBe(1);
    expect(JSON.parse(cut.stdout)).toMatch(/^x+…\[\d+ characters left out\]$/);
  });

  it("refuses a pmcp.config exec limit out of range, naming the file and the key, before any server starts", async () => {
    const project = join(dir, "bad-limit");
    await mkdir(project, { recursive: true });
    const marker = join(project, "spawned");
    const spawnMarker = `require("node:fs").writeFileSync(${JSON.stringify(marker)}, "")`;
    await writeFile(
      join(project, "pmcp.config.json"),
      JSON.stringify({ servers: { probe: { command: process.execPath, args: ["-e", spawnMarker] } }, exec: { maxTimeMs: 2 ** 31 } }),
    );
    await writeFile(join(project, "one.ts"), "return 1;");
    const run = await runCli(["exec", "one.ts"], { cwd: project });
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe(
      `pmcp: ${join(project, "pmcp.config.json")} at exec.maxTimeMs: must be a whole number from 1 to 2147483647, got 2147483648`,
    );
    expect(existsSync(marker)).toBe(false);
  });

  it("takes its limits from pmcp.config exec, and records each call with --observe", async () => {
    const project = join(dir, "project");
    const observations = join(project, "observations");
    await mkdir(project, { recursive: true });
    await writeFile(
      join(project, "pmcp.config.json"),
      JSON.stringify({
        servers: { behaviour: { command: process.execPath, args: [join(FIXTURES, "behaviour-server.mjs")] } },
        exec: { maxCalls: 1 },
      }),
    );
    await writeFile(
      join(project, "two-calls.ts"),
      'await behaviour.getItem({ id: "a" });\nawait behaviour.getItem({ id: "b" });\nreturn 1;',
    );
    const run = await runCli(["exec", "two-calls.ts", "--observe", observations], { cwd: project });
    expect(run.code).toBe(1);
    expect(run.stderr.split("\n")[0]).toMatch(/^pmcp: \[Call limit\] .*\(1 tool call made\)$/);
    expect(await readdir(join(observations, "behaviour"))).toEqual(["get_item.jsonl"]);

    const raised = await runCli(["exec", "two-calls.ts", "--max-calls", "2"], { cwd: project });
    expect(raised).toMatchObject({ code: 0, stdout: "1\n" });
  });

  it("ends a usage error with exit 2 and one line on stderr, in its own process", async () => {
    const run = await runCli(["exec"]);
    expect(run).toMatchObject({ code: 2, stdout: "" });
    expect(run.stderr.split("\n")[0]).toBe("pmcp: exec: missing <file>");
  });

  it.each([
    [["exec"], "pmcp: exec: missing <file>"],
    [["exec", "/no/such/program.ts", ...sources], "pmcp: /no/such/program.ts: no such file"],
    [["exec", "x.ts", "--max-calls", "0", ...sources], "pmcp: --max-calls must be a whole number ≥ 1, got 0"],
    [["serve", "exec", "--max-time-ms", "1.5", ...sources], "pmcp: --max-time-ms must be a whole number from 1 to 2147483647, got 1.5"],
    [["exec", "x.ts", ...sources, "--max-time-ms"], "pmcp: Not enough arguments following: max-time-ms"],
    [["exec", "x.ts", "--max-heap-mb", "100000", ...sources], "pmcp: --max-heap-mb must be a whole number from 1 to 2048, got 100000"],
    [["exec", "x.ts", "--max-programs", "0", ...sources], "pmcp: --max-programs must be a whole number ≥ 1, got 0"],
    [["exec", CLI], 'pmcp: nothing to run: give --endpoint <url>, --stdio "<command>" or --config <file>, or list servers in pmcp.config'],
  ])("%j is a usage error: exit 2, one line", async (args, line) => {
    const run = await runInProcess(args);
    expect(run.code).toBe(2);
    expect(run.stderr.split("\n")[0]).toBe(line);
  });
});

/** Two calls of one server: 3 and 3. */
const TWO_ITEMS =
  'const first = await behaviour.getItem({ id: "a" });\nconst second = await behaviour.getItem({ id: "a" });\nreturn first.count + second.count;';

describe("servers listed for their types, without a bundle", () => {
  /** A --stdio server that appends a line to `starts` each time it is started. */
  const counted = (starts: string) => [
    "--stdio",
    `sh -c 'echo started >> "$0"; exec "$1" "$2"' ${starts} ${process.execPath} ${join(FIXTURES, "behaviour-server.mjs")}`,
    "--id",
    "behaviour",
  ];
  const startsIn = async (starts: string) => (await readFile(starts, "utf8")).split("\n").filter(Boolean);

  it("pmcp exec lists a server and runs the program's calls on the one process it started", async () => {
    const starts = join(dir, "exec-starts.txt");
    const program = join(dir, "two-items.ts");
    await writeFile(program, TWO_ITEMS);
    const run = await runCli(["exec", program, ...counted(starts)]);
    expect(run).toMatchObject({ code: 0, stdout: "6\n" });
    expect(await startsIn(starts)).toEqual(["started"]);
  });

  it("pmcp serve exec lists a server and runs programs' calls on the one process it started", async () => {
    const starts = join(dir, "serve-starts.txt");
    const client = new Client({ name: "exec-cli-test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({ command: process.execPath, args: [CLI, "serve", "exec", ...counted(starts)], cwd: ROOT }),
    );
    try {
      for (const id of ["a", "b"]) {
        const answer = await client.callTool({ name: "execute_program", arguments: { code: TWO_ITEMS.replaceAll('"a"', `"${id}"`) } });
        expect((answer.content as { text: string }[])[0]?.text.split("\n")[0]).toBe("[Script executed successfully]");
      }
    } finally {
      await client.close();
    }
    expect(await startsIn(starts)).toEqual(["started"]);
  });
});

function runStdin(args: string[], input: string | Buffer): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once("error", reject);
    child.once("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}
