import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { walkSchemas } from "../../src/json-schema/traverse.js";
import { createTypedServer } from "../fixtures/typed-server.mjs";
import { CLI, FIXTURES, ROOT, serveOverHttp } from "../helpers/cli.js";
import { type HttpFixture, serveHttp } from "../helpers/http-server.js";
import { observedPid } from "../helpers/observed-pid.js";
import { outputDir } from "../helpers/typescript.js";

const require = createRequire(import.meta.url);
const thirdParty = (name: string) => join(require.resolve(`@modelcontextprotocol/${name}/package.json`), "..", "dist/index.js");

const ProgramResult = z.object({
  content: z.array(z.object({ type: z.literal("text"), text: z.string() })),
  structuredContent: z.object({
    result: z.unknown(),
    logs: z.array(z.string()),
    calls: z.array(
      z.object({ server: z.string(), tool: z.string(), durationMs: z.number(), ok: z.boolean(), code: z.string().optional() }),
    ),
    durationMs: z.number(),
  }),
  isError: z.boolean().optional(),
});

let dir: string;
let inventory: HttpFixture;
/** Every call of a weather tool that is not read-only is a line here (the fixture writes it). */
let callsFile: string;
let config: string;

beforeAll(async () => {
  dir = await outputDir("serve-exec");
  inventory = await serveHttp(createTypedServer, { transport: "streamable-http" });
  callsFile = join(dir, "weather-calls.jsonl");
  config = join(dir, "mcp.json");
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        inventory: { url: inventory.url },
        weather: { command: process.execPath, args: [join(FIXTURES, "weather-server.mjs")], env: { CALLS_FILE: callsFile } },
        behaviour: { command: process.execPath, args: [join(FIXTURES, "behaviour-server.mjs")] },
      },
    }),
  );
});
afterAll(() => inventory.close());

async function execute(client: Client, code: string, timeoutMs?: number) {
  const args = timeoutMs === undefined ? { code } : { code, timeout_ms: timeoutMs };
  return ProgramResult.parse(await client.callTool({ name: "execute_program", arguments: args }, undefined, { timeout: 120_000 }));
}

/**
 * Resolves once the session has started: serve exec answers at once and starts its servers and
 * checker meanwhile, and these tests are about what comes after. Each try waits within the
 * server's own time limit; only the start's own [Timeout] is tried again.
 */
async function untilStarted(client: Client): Promise<void> {
  for (;;) {
    const { content } = await execute(client, "return 1;");
    if (!content[0]?.text.startsWith("[Timeout] the session was still starting")) return;
  }
}

async function weatherCalls(): Promise<string[]> {
  const text = await readFile(callsFile, "utf8").catch(() => "");
  return text.split("\n").filter(Boolean);
}

const TWO_SERVERS = `
const stock = await inventory.getStock({ sku: "A1" });
const weather_ = await weather.getWeather({ city: "Oslo" });
const reading = weather_.json() as { city: string };
console.log("stock", stock.quantity);
return { sku: stock.sku, quantity: stock.quantity, city: reading.city };
`;

describe("pmcp serve exec over stdio", () => {
  const client = new Client({ name: "serve-exec-test", version: "1.0.0" });

  beforeAll(async () => {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "exec", "--config", config, "--max-calls", "5", "--max-heap-mb", "16"],
        cwd: ROOT,
        stderr: "inherit",
      }),
    );
    await untilStarted(client);
  }, 600_000);
  afterAll(() => client.close());

  it("gives every node of every input and output schema it lists a type", async () => {
    const { tools } = await client.listTools();
    const untyped = tools.flatMap((tool) =>
      (["inputSchema", "outputSchema"] as const).flatMap((which) =>
        [...walkSchemas(tool[which])]
          .filter(({ node }) => !Object.hasOwn(node, "type"))
          .map(({ pointer }) => `${tool.name} ${which}${pointer}`),
      ),
    );
    expect(untyped).toEqual([]);
    expect(tools.map((tool) => tool.outputSchema === undefined)).toEqual([false, false, false]);
  });

  it("serves list_tools, inspect_tool and execute_program, the last with an output schema", async () => {
    // A tools list that never changes, and no list_changed notification promised.
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["list_tools", "inspect_tool", "execute_program"]);
    expect(tools[2]?.outputSchema).toMatchObject({ type: "object", required: ["result", "logs", "calls", "durationMs"] });
    expect(tools[2]?.inputSchema).toEqual({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      type: "object",
      properties: {
        code: { type: "string", description: "The program: TypeScript statements ending in `return <value>`" },
        timeout_ms: { type: "integer", minimum: 1, description: "Wall time allowed in milliseconds (at most 30000, the default)" },
      },
      required: ["code"],
    });
  });

  it.each([
    [{}, "code must be the program's TypeScript as a string, got undefined"],
    [{ code: 5 }, "code must be the program's TypeScript as a string, got number"],
    [{ code: "return 1;", timeout_ms: "x" }, 'timeout_ms must be a whole number of milliseconds ≥ 1, got "x"'],
    [{ code: "return 1;", timeout_ms: 2.5 }, "timeout_ms must be a whole number of milliseconds ≥ 1, got 2.5"],
  ])("answers the arguments %j with [Invalid input] and the structured fields", async (args, message) => {
    const failed = ProgramResult.parse(await client.callTool({ name: "execute_program", arguments: args }));
    expect(failed.isError).toBe(true);
    expect(failed.content[0]?.text).toBe(`[Invalid input] ${message}\n${JSON.stringify(failed.structuredContent)}`);
    expect(failed.structuredContent).toEqual({ result: null, logs: [], calls: [], durationMs: 0 });
  });

  it("inspect_tool shows how a program calls the tool, with the types it uses", async () => {
    const result = await client.callTool({ name: "inspect_tool", arguments: { tool_name: "inventory/get_stock" } });
    const program = (result.structuredContent as { program: { signature: string; types: string } }).program;
    expect(program.signature).toBe("inventory.getStock(args: GetStockArgs): Promise<StockLevel>");
    const declared = program.types.split("\n").filter((line) => line.startsWith("type "));
    expect(declared.map((line) => line.split(" =")[0])).toEqual(["type GetStockArgs", "type StockLevel"]);
  });

  it("runs a program that calls two servers (HTTP and stdio) and combines their results", async () => {
    const outcome = await execute(client, TWO_SERVERS);
    expect(outcome.isError).toBeUndefined();
    expect(outcome.structuredContent.result).toEqual({ sku: "A1", quantity: 7, city: "Oslo" });
    expect(outcome.structuredContent.logs).toEqual(["stock 7"]);
    expect(outcome.structuredContent.calls.map(({ server, tool, ok }) => ({ server, tool, ok }))).toEqual([
      { server: "inventory", tool: "get_stock", ok: true },
      { server: "weather", tool: "get_weather", ok: true },
    ]);
    // Durations in tenths of a millisecond: no digits the agent pays for and cannot use.
    const durations = [outcome.structuredContent.durationMs, ...outcome.structuredContent.calls.map((call) => call.durationMs)];
    expect(durations.map((ms) => /^\d+(\.\d)?$/.test(String(ms)))).toEqual([true, true, true]);
    const [text] = outcome.content;
    expect(text?.text.split("\n")[0]).toBe("[Script executed successfully]");
    expect(JSON.parse(text?.text.split("\n")[1] ?? "")).toEqual(outcome.structuredContent);
  });

  it("refuses a program with a type error before any upstream call, with the compiler's did-you-mean", async () => {
    const code =
      'await weather.setUnits({ units: "metric" });\nconst stock = await inventory.getStock({ sku: "A1" });\nreturn stock.quantty;';
    const refused = await execute(client, code);
    expect(refused.isError).toBe(true);
    expect(refused.content[0]?.text.split("\n").slice(0, 2)).toEqual([
      "[Type error] 1 problem; nothing was run",
      "3:14 Property 'quantty' does not exist on type 'StockLevel'. Did you mean 'quantity'?",
    ]);
    expect(refused.structuredContent).toEqual({ result: null, logs: [], calls: [], durationMs: 0 });
    expect(await weatherCalls()).toEqual([]);

    const fixed = await execute(client, code.replace("quantty", "quantity"));
    expect(fixed.structuredContent.result).toBe(7);
    expect(await weatherCalls()).toEqual([JSON.stringify({ name: "set_units", arguments: { units: "metric" } })]);
  });

  it("turns a schema-breaking upstream answer into a catchable OutputValidationError", async () => {
    const outcome = await execute(
      client,
      `try {
        await behaviour.badOutput();
        return "not thrown";
      } catch (e) {
        const error = e as rt.CallError;
        return { name: error.name, code: error.code, serverId: error.serverId, toolName: error.toolName, message: error.message };
      }`,
    );
    expect(outcome.structuredContent.result).toEqual({
      name: "OutputValidationError",
      code: "OUTPUT_VALIDATION",
      serverId: "behaviour",
      toolName: "bad_output",
      message: expect.stringMatching(/^behaviour\/bad_output: result does not match the output schema.*count/s),
    });
    expect(outcome.structuredContent.calls.map(({ ok, code }) => ({ ok, code }))).toEqual([{ ok: false, code: "OUTPUT_VALIDATION" }]);
  });

  it.each([
    ["[Timeout]", "while (true) {}", 500],
    ["[Memory limit]", 'const parts: string[] = [];\nwhile (true) parts.push("x".repeat(1 << 20) + parts.length);', undefined],
    ["[Output limit]", 'return "x".repeat(100_000);', undefined],
    ["[Uncaught error]", 'throw new Error("boom");', undefined],
    ["[Invalid input]", "return 1;", -1],
  ] as const)("ends with %s and the structured fields, and the next program runs", async (tag, code, timeoutMs) => {
    const failed = await execute(client, code, timeoutMs);
    expect(failed.isError).toBe(true);
    expect(failed.content[0]?.text.startsWith(`${tag} `)).toBe(true);
    expect(Object.keys(failed.structuredContent)).toEqual(["result", "logs", "calls", "durationMs"]);
    expect((await execute(client, "return 2;")).structuredContent.result).toBe(2);
  });

  it("places a run-time error at the start of its statement in the agent's text, not inside a template string", async () => {
    const failed = await execute(client, "const x = [1, 2];\nif (x.length > 1)\n  throw new Error(`too many: ${x.length} items`);");
    expect(failed.content[0]?.text.split("\n")[0]).toBe("[Uncaught error] Error: too many: 2 items (line 3, column 3)");
  });

  it("stops a program whose types take too long to check, without a call or harm to the server", async () => {
    const union = Array.from({ length: 100 }, (_, i) => i).join(" | ");
    const bomb = `type N = ${union};\ntype T = { [A in N]: { [B in N]: { [C in N]: [A, B, C] }[N] }[N] }[N];\nawait behaviour.getItem({ id: "x" });\nreturn [1, 2, 3] as T;`;
    const [failed, meanwhile] = await Promise.all([execute(client, bomb, 1500), client.callTool({ name: "list_tools", arguments: {} })]);
    expect(failed.content[0]?.text).toBe(
      `[Timeout] the program's time limit of 1500 ms ran out during its type-check; nothing was run\n${JSON.stringify(failed.structuredContent)}`,
    );
    expect(failed.structuredContent.calls).toEqual([]);
    expect(meanwhile.isError).not.toBe(true);
    expect((await execute(client, "return 2;")).structuredContent.result).toBe(2);
  });

  it("ends a result nested too deep to send with [Output limit], and a program too large to read with [Invalid input]", async () => {
    const deep = await execute(client, "let a: unknown[] = [];\nfor (let i = 0; i < 5000; i++) a = [a];\nreturn a;");
    expect(deep.content[0]?.text.split("\n")[0]).toBe("[Output limit] the result nests 5001 levels deep, more than 512");
    expect(deep.structuredContent.result).toBe("…[a value nested 5001 levels deep left out]");
    const large = await execute(client, `return ${JSON.stringify("x".repeat(100_001))};`);
    expect(large.content[0]?.text.split("\n")[0]).toMatch(/^\[Invalid input\] .*at most 100000/);
    expect((await execute(client, "return 2;")).structuredContent.result).toBe(2);
  });

  it("runs programs that wait on slow tools side by side, beyond the number of cores", async () => {
    // Two sandbox threads (one per core) ran two at a time: the last two then passed their time. Two at
    // a time take 8 s of the 7; side by side leave 3 s for checks and starts on a loaded machine.
    const programs = Array.from({ length: 4 }, () => execute(client, "return (await behaviour.slow({ ms: 4000 })).id;", 7000));
    expect((await Promise.all(programs)).map((outcome) => outcome.structuredContent.result)).toEqual(["slow", "slow", "slow", "slow"]);
  });

  it("ends with [Call limit] and lists the calls already made", async () => {
    const failed = await execute(client, 'for (let i = 0; i < 10; i++) await behaviour.getItem({ id: "a" + i });\nreturn "done";');
    expect(failed.isError).toBe(true);
    expect(failed.content[0]?.text.startsWith("[Call limit] ")).toBe(true);
    expect(failed.structuredContent.calls.map((call) => call.ok)).toEqual([true, true, true, true, true]);
  });

  it("gives a tool without an output schema every member its declared rt.ToolResult promises", async () => {
    const outcome = await execute(
      client,
      `const listing = await weather.listStations();
      return {
        serverId: listing.serverId,
        toolName: listing.toolName,
        raw: Array.isArray(listing.raw.content) ? listing.raw.content.length : -1,
        content: listing.content.map((block) => (typeof block === "object" && block !== null && !Array.isArray(block) ? block.type : null)),
        text: JSON.parse(listing.text).count,
        others: [listing.images, listing.audio, listing.resourceLinks, listing.resources].map((blocks) => blocks.length),
        structuredContent: listing.structuredContent ?? "none",
        json: (listing.json() as { count: number }).count,
        get: listing.get("count"),
        has: [listing.has("stations"), listing.has("nope")],
        require: listing.require("count"),
      };`,
    );
    expect(outcome.structuredContent.result).toEqual({
      serverId: "weather",
      toolName: "list_stations",
      raw: 1,
      content: ["text"],
      text: 2,
      others: [0, 0, 0, 0],
      structuredContent: "none",
      json: 2,
      get: 2,
      has: [true, false],
      require: 2,
    });
  });

  it("runs 10 programs at once, each with its own result and globals", async () => {
    const outcomes = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        execute(
          client,
          `(globalThis as { mine?: number }).mine ??= ${index};
          const item = await behaviour.slow({ ms: 50 });
          return [(globalThis as { mine?: number }).mine, item.id];`,
        ),
      ),
    );
    expect(outcomes.map((outcome) => outcome.structuredContent.result)).toEqual(Array.from({ length: 10 }, (_, index) => [index, "slow"]));
  });
});

describe("pmcp serve exec --http", () => {
  let child: ChildProcessWithoutNullStreams;
  let url: string;

  beforeAll(async () => {
    ({ child, url } = await serveOverHttp(["exec", "--http", "0", "--config", config, "--profile", "openai-strict"]));
  }, 120_000);
  afterAll(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });

  it("with --profile, inspect_tool shows the schemas the model is given and what changed, list_tools each tool's name for it", async () => {
    const client = new Client({ name: "serve-exec-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await untilStarted(client);
    const inspected = (await client.callTool({ name: "inspect_tool", arguments: { tool_name: "inventory/get_stock" } })).structuredContent;
    const { inputSchema, modelName, profile, strict, modelNotes, program } = inspected as Record<string, unknown>;
    expect({ inputSchema, modelName, profile, strict, modelNotes }).toEqual({
      inputSchema: {
        type: "object",
        properties: {
          sku: { type: "string", description: "Stock keeping unit" },
          warehouse: { type: ["string", "null"], enum: ["north", "south", null] },
        },
        required: ["sku", "warehouse"],
        additionalProperties: false,
      },
      modelName: "get_stock",
      profile: "openai-strict",
      strict: true,
      modelNotes: [
        {
          pointer: "/inputSchema",
          kind: "optional-to-nullable",
          message: "optional properties warehouse became required and nullable (send null to omit)",
        },
        {
          pointer: "/outputSchema/properties/location/anyOf/0",
          kind: "tuple-to-array",
          message: "tuple became an array: positions are described in the description only",
        },
      ],
    });
    expect(program).toMatchObject({ signature: "inventory.getStock(args: GetStockArgs): Promise<StockLevel>" });
    const { tools } = (await client.callTool({ name: "list_tools", arguments: { server: "inventory" } })).structuredContent as {
      tools: unknown[];
    };
    expect(tools).toEqual([
      { name: "inventory/get_stock", summary: "Stock level for one SKU", modelName: "get_stock" },
      { name: "inventory/ping", summary: "No output schema at all", modelName: "ping" },
    ]);
    await client.close();
  });

  // One type-checker for all: a type bomb from one client made the next clients' `return 1` end in [Timeout] behind it.
  it("runs the other clients' programs while one client's type bomb is being checked", async () => {
    const clients = await Promise.all(
      Array.from({ length: 6 }, async () => {
        const client = new Client({ name: "serve-exec-test", version: "1.0.0" });
        await client.connect(new StreamableHTTPClientTransport(new URL(url)));
        await untilStarted(client);
        return client;
      }),
    );
    try {
      const [bomber, ...others] = clients;
      const union = Array.from({ length: 100 }, (_, i) => i).join(" | ");
      const bomb = `type N = ${union};\ntype T = { [A in N]: { [B in N]: { [C in N]: [A, B, C] }[N] }[N] }[N];\nreturn [1, 2, 3] as T;`;
      let bombDone = false;
      const bombed = execute(bomber!, bomb).finally(() => {
        bombDone = true;
      });
      // Each client's programs one after the other: the later ones surely arrive while the bomb is checked.
      const answers = await Promise.all(
        others.map(async (client, index) => {
          const results: unknown[] = [];
          for (let round = 0; round < 3; round++) {
            const outcome = await execute(client, `return ${index * 10 + round};`);
            results.push(outcome.isError ? outcome.content[0]?.text : outcome.structuredContent.result);
          }
          return results;
        }),
      );
      expect(answers).toEqual(others.map((_, index) => [0, 1, 2].map((round) => index * 10 + round)));
      expect(bombDone).toBe(false);
      // Refused by whichever limit it reaches first, which depends on the machine's load: either way nothing ran.
      expect((await bombed).content[0]?.text.split("\n")[0]).toMatch(
        /^(\[Timeout\] type-checking the program took longer than 10000 ms|\[Memory limit\] type-checking the program needed more than 512 MB); nothing was run$/,
      );
      expect((await execute(bomber!, "return 2;")).structuredContent.result).toBe(2);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
    }
  }, 120_000);

  it("runs the two-server program over Streamable HTTP and stops on SIGTERM", async () => {
    const client = new Client({ name: "serve-exec-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await untilStarted(client);
    const outcome = await execute(client, TWO_SERVERS);
    expect(outcome.structuredContent.result).toEqual({ sku: "A1", quantity: 7, city: "Oslo" });
    const refused = await execute(client, "return inventory.nope;");
    expect(refused.content[0]?.text.split("\n")[0]).toBe("[Type error] 1 problem; nothing was run");
    await client.close();
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  // signal-exit (the observation files' locks) re-raised SIGINT once the server's own listener was gone: the
  // process died unclosed, and its stdio server, busy with a call, lived on as an orphan.
  it("closes its stdio servers on SIGINT mid-program while recording observations", async () => {
    const observations = join(dir, "serve-signal-observations");
    const behaviour = `${process.execPath} ${join(FIXTURES, "behaviour-server.mjs")}`;
    const args = ["serve", "exec", "--http", "0", "--observe", observations, "--stdio", behaviour, "--id", "behaviour"];
    const served = spawn(process.execPath, [CLI, ...args], { cwd: ROOT });
    const exited = new Promise((resolve) => served.once("exit", (code, signal) => resolve({ code, signal })));
    const address = await new Promise<string>((resolve) => {
      let stderr = "";
      served.stderr.on("data", (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /^Serving exec on (\S+)$/m.exec(stderr);
        if (match) resolve(match[1]!);
      });
    });
    const client = new Client({ name: "serve-exec-test", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(address)));
    await untilStarted(client);
    const running = execute(client, "await behaviour.pid({});\nawait behaviour.slow({ ms: 120000 });\nreturn 1;").catch(() => undefined);
    const serverPid = await observedPid(observations);
    served.kill("SIGINT");
    const exit = await exited;
    expect(() => process.kill(serverPid, 0)).toThrow(expect.objectContaining({ code: "ESRCH" }));
    expect(exit).toEqual({ code: 0, signal: null });
    await running;
    await client.close();
  });
});

/**
 * `serve exec --learn` over the weather fixture, recording into `observations`: one observation types a
 * tool (the default --min-quality, low). Its stderr is piped: it warns of logs it cannot learn from.
 */
async function learningServer(observations: string): Promise<Client> {
  const client = new Client({ name: "serve-exec-test", version: "1.0.0" });
  const weather = `${process.execPath} ${join(FIXTURES, "weather-server.mjs")}`;
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [CLI, "serve", "exec", "--stdio", weather, "--id", "weather", "--learn", "--observe", observations],
      cwd: ROOT,
      stderr: "pipe",
    }),
  );
  await untilStarted(client);
  return client;
}

describe("pmcp serve exec --learn", () => {
  // One server for both claims (a server costs seconds of CPU): the log it cannot learn from is there from its start.
  it("types a tool without an output schema by its observed results once inferred, and keeps the tools list; keeps a program's outcome and a tool's type when its observations cannot be learned from", async () => {
    const observations = join(dir, "learned");
    await mkdir(join(observations, "weather"), { recursive: true });
    await writeFile(join(observations, "weather", "get_weather.jsonl"), "not an observation log\n");
    const client = await learningServer(observations);
    try {
      const program = "const listing = await weather.listStations();\nreturn listing.value.stations.map((station) => station.name);";
      const before = await execute(client, program);
      expect(before.content[0]?.text.split("\n")[1]).toBe("2:16 Property 'value' does not exist on type 'ToolResult'.");
      const inspect = async () =>
        (await client.callTool({ name: "inspect_tool", arguments: { tool_name: "weather/list_stations" } })).structuredContent as {
          program: { signature: string; types: string };
          inferredOutputSchema?: { quality: string; observations: number };
        };
      expect((await inspect()).program.types).toContain("type ListStationsResult = rt.ToolResult;");

      const outcome = await execute(client, "return (await weather.listStations()).text.length > 0;");
      expect(outcome.isError).toBeUndefined();
      expect(outcome.structuredContent.result).toBe(true);
      expect(await readdir(observations)).toEqual(["weather"]);

      const learned = await inspect();
      expect(learned.inferredOutputSchema).toMatchObject({ quality: "low", observations: 1 });
      expect(learned.program.types).not.toContain("rt.ToolResult");
      expect(learned.program.signature).toBe("weather.listStations(args?: ListStationsArgs): Promise<rt.ParsedResult<ListStationsResult>>");
      expect((await execute(client, program)).structuredContent.result).toEqual(["North", "South"]);
      expect((await execute(client, "return (await weather.listStations()).value.stations.length;")).structuredContent.result).toBe(2);
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["list_tools", "inspect_tool", "execute_program"]);
      // get_weather's log cannot be learned from: its result is still the content result it was.
      const kept = await execute(client, 'return (await weather.getWeather({ city: "Oslo" })).text.length > 0;');
      expect(kept.structuredContent.result).toBe(true);
    } finally {
      await client.close();
    }
  });
});

describe("pmcp serve exec against third-party servers", () => {
  it("combines server-everything and server-memory in one program", async () => {
    const client = new Client({ name: "serve-exec-test", version: "1.0.0" });
    const memory = join(dir, "memory.jsonl");
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [CLI, "serve", "exec", "--stdio", `${process.execPath} ${thirdParty("server-everything")}`].concat([
          "--stdio",
          `${process.execPath} ${thirdParty("server-memory")}`,
        ]),
        cwd: ROOT,
        env: { ...process.env, MEMORY_FILE_PATH: memory } as Record<string, string>,
        stderr: "inherit",
      }),
    );
    await untilStarted(client);
    try {
      const { tools } = (await client.callTool({ name: "list_tools", arguments: {} })).structuredContent as { tools: { name: string }[] };
      const servers = [...new Set(tools.map((tool) => tool.name.split("/")[0]))].sort();
      expect(servers).toHaveLength(2);
      const [everything, memoryServer] = servers[0]?.includes("memory") ? [servers[1], servers[0]] : [servers[0], servers[1]];
      const declared = async (name: string) =>
        (
          (await client.callTool({ name: "inspect_tool", arguments: { tool_name: name } })).structuredContent as {
            program: { signature: string };
          }
        ).program.signature;
      const echo = await declared(`${everything}/echo`);
      const create = await declared(`${memoryServer}/create_entities`);
      const read = await declared(`${memoryServer}/read_graph`);
      const global = (signature: string) => signature.split(".")[0];
      const method = (signature: string) => signature.split(".")[1]?.split("(")[0];
      const outcome = await execute(
        client,
        `const said = await ${global(echo)}.${method(echo)}({ message: "hello" });
        await ${global(create)}.${method(create)}({ entities: [{ name: "pmcp", entityType: "project", observations: [said.text] }] });
        const graph = await ${global(read)}.${method(read)}();
        return { echoed: said.text, graph: JSON.stringify(graph).includes("pmcp") };`,
      );
      expect(outcome.content[0]?.text.split("\n")[0]).toBe("[Script executed successfully]");
      expect(outcome.structuredContent.result).toEqual({ echoed: "Echo: hello", graph: true });
    } finally {
      await client.close();
    }
  }, 120_000);
});
