import { type ChildProcess, spawn } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { CompositionClient } from "@pmcp-codegen/runtime";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, fixtureCommand, runCli, runInProcess } from "../helpers/cli.js";
import { once } from "../helpers/once.js";
import { COMPILE_BUDGET_MS, outputDir, typecheck } from "../helpers/typescript.js";

/** A server on the SDK's v2 line: `dual` speaks both eras, `modern` 2026-07-28 only. */
type Mode = "dual" | "modern";
const V2 = join(FIXTURES, "v2-server.mjs");
const MEMORY = join(createRequire(import.meta.url).resolve("@modelcontextprotocol/server-memory/package.json"), "..", "dist/index.js");

interface Listed {
  servers: {
    id: string;
    protocolVersion?: string;
    serverInfo?: unknown;
    instructions?: string;
    tools: { name: string; outputSchema?: unknown }[];
  }[];
}

let dir: string;
const httpServers: ChildProcess[] = [];
/** The v2 fixture over HTTP, modern-only and dual, started once for the exports below. */
let modernHttp: string;
let dualHttp: string;

/** Starts the v2 fixture over Streamable HTTP and resolves with its URL. */
async function serveV2Http(mode: Mode): Promise<string> {
  const child = spawn(process.execPath, [V2, mode, "http"], { stdio: ["ignore", "pipe", "inherit"] });
  httpServers.push(child);
  const [line] = await new Promise<string[]>((resolve) => createInterface({ input: child.stdout! }).once("line", (url) => resolve([url])));
  return line!;
}

beforeAll(async () => {
  dir = await outputDir("eras");
  [modernHttp, dualHttp] = await Promise.all([serveV2Http("modern"), serveV2Http("dual")]);
});

afterAll(() => {
  for (const child of httpServers) child.kill();
});

async function exportBundle(name: string, args: string[]): Promise<Listed> {
  const out = join(dir, `${name}.json`);
  const result = await runCli(["schema", "export", ...args, "-o", out, "--quiet"]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(await readFile(out, "utf8")) as Listed;
}

/** One export of the v2 fixture, modern-only and dual, over stdio and over HTTP: its bytes and its bundle. */
const v2Export = once(async () => {
  const config = join(dir, "v2.json");
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        modern: { command: process.execPath, args: [V2, "modern"] },
        dual: { command: process.execPath, args: [V2, "dual"] },
        "modern-http": { url: modernHttp },
        "dual-http": { url: dualHttp },
      },
    }),
  );
  const out = join(dir, "v2-bundle.json");
  const result = await runCli(["schema", "export", "--config", config, "-o", out, "--quiet"]);
  expect(result.code, result.stderr).toBe(0);
  const text = await readFile(out, "utf8");
  return { config, out, text, bundle: JSON.parse(text) as Listed };
});

const COUNT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  type: "integer",
  minimum: -9007199254740991,
  maximum: 9007199254740991,
};

describe("schema export negotiates the era the server speaks", () => {
  it.each([
    ["dual", "stdio"],
    ["modern", "stdio"],
    ["dual", "http"],
    ["modern", "http"],
  ] as const)("a %s v2 server over %s is exported in 2026-07-28, its non-object outputs as declared", async (mode, transport) => {
    const { bundle } = await v2Export();
    const server = bundle.servers.find((entry) => entry.id === (transport === "stdio" ? mode : `${mode}-http`));
    expect(server?.protocolVersion).toBe("2026-07-28");
    expect(Object.fromEntries(server!.tools.map((tool) => [tool.name, (tool.outputSchema as { type?: unknown }).type]))).toEqual({
      count: "integer",
      get_stock: "object",
      names: "array",
    });
    expect(server?.tools.find((tool) => tool.name === "count")?.outputSchema).toEqual(COUNT_SCHEMA);
  });

  it("a 2025-only reference server (v1 SDK) is exported in its own era, with one process", async () => {
    const memory = (await everyEra()).servers.find((server) => server.id === "memory");
    expect(memory?.protocolVersion).toBe("2025-11-25");
    expect(memory?.tools.length).toBe(9);
  });

  it("--protocol legacy records the 2025 handshake and v2's wrapper; a modern-only server refuses it in one line", async () => {
    const dual = await exportBundle("dual-legacy", [
      "--stdio",
      fixtureCommand("v2-server.mjs", "dual"),
      "--id",
      "inv",
      "--protocol",
      "legacy",
    ]);
    expect(dual.servers[0]?.protocolVersion).toBe("2025-11-25");
    expect(dual.servers[0]?.tools.find((tool) => tool.name === "count")?.outputSchema).toMatchObject({
      type: "object",
      properties: { result: { type: "integer" } },
      required: ["result"],
    });
    const out = join(dir, "refused.json");
    const refused = await runCli([
      "schema",
      "export",
      "--stdio",
      fixtureCommand("v2-server.mjs", "modern"),
      "--id",
      "inv",
      "--protocol",
      "legacy",
      "-o",
      out,
    ]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.split("\n").filter((line) => line.startsWith("pmcp: "))[0]).toBe(
      'pmcp: server "inv": the server refused the protocol version offered: Unsupported protocol version: 2025-11-25',
    );
    const usage = await runInProcess(["schema", "export", "--stdio", fixtureCommand("v2-server.mjs"), "--protocol", "2026", "-o", out]);
    expect([usage.code, usage.stderr.split("\n")[0]]).toEqual([
      2,
      'pmcp: --protocol "2026": expected "legacy", "auto" or a protocol version such as "2026-07-28"',
    ]);
    const old = await runInProcess(["schema", "export", "--stdio", fixtureCommand("v2-server.mjs"), "--protocol", "2025-06-18", "-o", out]);
    expect([old.code, old.stderr.split("\n")[0]]).toEqual([
      2,
      'pmcp: --protocol "2025-06-18": 2025-06-18 is a 2025-era version: use "legacy"',
    ]);
  });

  it("over HTTP too, a modern-only server refuses --protocol legacy in one line (no fall back to HTTP+SSE)", async () => {
    const out = join(dir, "refused-http.json");
    const refused = await runCli(["schema", "export", "--endpoint", modernHttp, "--id", "inv", "--protocol", "legacy", "-o", out]);
    expect([refused.code, refused.stderr.split("\n").find((line) => line.startsWith("pmcp: "))]).toEqual([
      1,
      'pmcp: server "inv": the server refused the protocol version offered: Unsupported protocol version: 2025-11-25',
    ]);
  });

  it("a server that prints to stdout before its first answer is read past while negotiating, with a warning, and leaves no process", async () => {
    const out = join(dir, "banner.json");
    const pidFile = join(dir, "banner.pid");
    const result = await runCli(["schema", "export", "--stdio", fixtureCommand("v2-server.mjs", "modern"), "--id", "inv", "-o", out], {
      env: { BANNER: "Inventory server starting...", PID_FILE: pidFile },
    });
    expect([result.code, result.stderr.split("\n").filter((line) => line.startsWith("warning: "))]).toEqual([
      0,
      ['warning: server "inv": skipped output on stdout that is not JSON-RPC: "Inventory server starting..."'],
    ]);
    expect((JSON.parse(await readFile(out, "utf8")) as Listed).servers.map((server) => server.protocolVersion)).toEqual(["2026-07-28"]);
    const pid = Number(await readFile(pidFile, "utf8"));
    expect(() => process.kill(pid, 0)).toThrow();
  });
});

/** The servers of every era, as `mcpServers` entries: v2 of both eras, v2 modern-only, a 2025-only one (v1 SDK). */
function serversOfEveryEra(slowStartMs?: number) {
  const entry = (args: string[]) => ({
    command: process.execPath,
    args: slowStartMs === undefined ? args : [join(FIXTURES, "slow-start.mjs"), String(slowStartMs), ...args],
    env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") },
  });
  return { mcpServers: { dual: entry([V2, "dual"]), modern: entry([V2, "modern"]), memory: entry([MEMORY]) } };
}

/** The servers of every era exported as they start, at once. */
const everyEra = once(async () => {
  const config = join(dir, "every-era.json");
  await writeFile(config, JSON.stringify(serversOfEveryEra()));
  return exportBundle("every-era", ["--config", config]);
});

type Servers = Listed["servers"];
const withoutEndpoints = (servers: Servers) =>
  servers.map(({ endpoint: _endpoint, ...server }: Servers[number] & { endpoint?: unknown }) => server);

describe("the recorded era does not depend on how long a server takes to start", () => {
  it("servers that read their input only 4.5 s after it came are recorded as when they start at once", async () => {
    const slow = join(dir, "every-era-slow.json");
    await writeFile(slow, JSON.stringify(serversOfEveryEra(4500)));
    const atOnce = await everyEra();
    // The old probe gave up on server/discover after half the timeout (4 s here): before these servers read it.
    const late = await exportBundle("every-era-slow", ["--config", slow, "--timeout", "8000"]);
    expect(late.servers.map((server) => [server.id, server.protocolVersion])).toEqual([
      ["dual", "2026-07-28"],
      ["memory", "2025-11-25"],
      ["modern", "2026-07-28"],
    ]);
    expect(withoutEndpoints(late.servers)).toEqual(withoutEndpoints(atOnce.servers));
  });

  it("a 2025 server that answers only ping before initialize, and one that exits on server/discover, get the 2025 handshake", async () => {
    const config = join(dir, "pre-init.json");
    const entry = (mode: string) => ({ command: process.execPath, args: [join(FIXTURES, "pre-init-server.mjs"), mode] });
    await writeFile(config, JSON.stringify({ mcpServers: { ignores: entry("ignore"), closes: entry("close") } }));
    const bundle = await exportBundle("pre-init", ["--config", config]);
    expect(bundle.servers.map((server) => [server.id, server.protocolVersion, server.tools.map((tool) => tool.name)])).toEqual([
      ["closes", "2025-11-25", ["hello"]],
      ["ignores", "2025-11-25", ["hello"]],
    ]);
  });

  it("--check names an era recorded differently, and schema diff reports it", async () => {
    const config = join(dir, "era-check.json");
    await writeFile(config, JSON.stringify({ mcpServers: { inventory: { command: process.execPath, args: [V2, "dual"] } } }));
    const out = join(dir, "era-check-bundle.json");
    expect((await runCli(["schema", "export", "--config", config, "-o", out, "--quiet"])).code).toBe(0);
    const current = await readFile(out, "utf8");
    const fresh = join(dir, "era-check-fresh.json");
    await writeFile(fresh, current);
    // What the old probe recorded after a slow start.
    const stale = join(dir, "era-check-stale.json");
    await writeFile(stale, current.replace('"protocolVersion": "2026-07-28"', '"protocolVersion": "2025-11-25"'));
    await writeFile(out, await readFile(stale, "utf8"));
    const check = await runCli(["schema", "export", "--config", config, "-o", out, "--check"]);
    expect([check.code, check.stdout, check.stderr.split("\n").filter((line) => line.startsWith("pmcp: "))]).toEqual([
      1,
      "DANGEROUS inventory /protocolVersion: protocolVersion 2025-11-25 → 2026-07-28: clients connect in another protocol era [protocol-version-changed]\n",
      [`pmcp: ${out} out of date (1 change); run pmcp schema export to update`],
    ]);
    const diff = await runCli(["schema", "diff", stale, "--schema", fresh, "--fail-on", "dangerous"]);
    expect([diff.code, diff.stdout]).toEqual([
      1,
      "DANGEROUS inventory /protocolVersion: protocolVersion 2025-11-25 → 2026-07-28: clients connect in another protocol era [protocol-version-changed]\n",
    ]);
    // The same JSON in other bytes is the one drift that is only formatting.
    await writeFile(out, JSON.stringify(JSON.parse(current)));
    const reformatted = await runCli(["schema", "export", "--config", config, "-o", out, "--check"]);
    expect([reformatted.code, reformatted.stdout]).toEqual([1, `${out}: same content, different bytes (formatting or key order)\n`]);
  });
});

describe("export of v2 servers is as lossless and as stable as of 2025 ones", () => {
  it("two exports of modern-only and dual servers (stdio and HTTP) give the same bytes, --check agrees, and the bundle is valid", async () => {
    const { config, out, text: first, bundle } = await v2Export();
    expect(bundle.servers.map((server) => [server.id, server.protocolVersion, server.serverInfo, server.instructions])).toEqual(
      ["dual", "dual-http", "modern", "modern-http"].map((id) => [
        id,
        "2026-07-28",
        { name: "Inventory V2", version: "2.0.0" },
        "A v2 fixture.",
      ]),
    );
    expect((await runCli(["schema", "export", "--config", config, "-o", out, "--quiet"])).code).toBe(0);
    expect(await readFile(out, "utf8")).toBe(first);
    const check = await runCli(["schema", "export", "--config", config, "-o", out, "--check"]);
    expect([check.code, check.stdout]).toEqual([0, expect.stringMatching(/up to date/)]);
    const ajv = new Ajv2020({ strict: false });
    const validate = ajv.compile(JSON.parse(await readFile(join(FIXTURES, "..", "..", "schemas/bundle.schema.json"), "utf8")));
    expect(validate(bundle), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe("generated clients connect in the era the bundle recorded", () => {
  let generated: { InvClient: new (client: CompositionClient) => { count(): Promise<number>; names(): Promise<string[]> } };

  beforeAll(async () => {
    // The modern-only server as exported, named inv.
    const exported = (await v2Export()).bundle;
    const modern = exported.servers.find((server) => server.id === "modern");
    const bundle = join(dir, "modern-stdio.json");
    await writeFile(bundle, JSON.stringify({ ...exported, servers: [{ ...modern, id: "inv" }] }));
    const result = await runInProcess(["generate", "--schema", bundle, "-o", join(dir, "generated")]);
    expect(result.code, result.stderr).toBe(0);
    generated = await import(join(dir, "generated/index.ts"));
  });

  it(
    "types a non-object result exactly: count() is a number under tsc --strict",
    async () => {
      const usage = join(dir, "usage.ts");
      await writeFile(
        usage,
        [
          'import type { CompositionClient } from "@pmcp-codegen/runtime";',
          'import { InvClient } from "./generated/index.js";',
          "export async function next(client: CompositionClient): Promise<number> {",
          "  const inv = new InvClient(client);",
          "  const n: number = await inv.count();",
          "  const names: string[] = await inv.names();",
          "  return n + names.length;",
          "}",
        ].join("\n"),
      );
      expect(await typecheck(dir, [usage], "nodenext")).toBe("");
    },
    COMPILE_BUDGET_MS,
  );

  it.each([
    ["modern", undefined, 1],
    ["dual", undefined, 1],
    ["dual", "legacy", 1],
    ["modern", "auto", 1],
  ] as const)("against a %s server (protocol %s): the same values, %i process", async (mode, protocol, processes) => {
    const log = join(dir, `spawns-${mode}-${protocol}.log`);
    const client = new CompositionClient({
      servers: { inv: { command: process.execPath, args: [V2, mode], env: { SPAWN_LOG: log }, ...(protocol ? { protocol } : {}) } },
    });
    try {
      const inv = new generated.InvClient(client);
      expect([(await inv.count()) + 1, await inv.names()]).toEqual([8, ["a", "b"]]);
    } finally {
      await client.close();
    }
    expect((await readFile(log, "utf8")).split("\n").filter(Boolean).length).toBe(processes);
  });

  it("a stale verdict is corrected: a bundle's 2026-07-28 against a 2025-only server, its 2025 against a modern-only one", async () => {
    const stale = new CompositionClient({
      servers: {
        v1: { command: process.execPath, args: [join(FIXTURES, "weather-server.mjs")] },
        modern: { command: process.execPath, args: [V2, "modern"] },
      },
    });
    try {
      const weather = await stale.callToolForResult({ server: "v1", tool: "get_weather", args: { city: "Oslo" }, protocol: "2026-07-28" });
      expect(weather.json()).toMatchObject({ city: "Oslo", temperature: 20.5, conditions: "sunny" });
      const names = await stale.callToolForResult({ server: "modern", tool: "names", protocol: "2025-11-25" });
      expect(names.structuredContent).toEqual(["a", "b"]);
    } finally {
      await stale.close();
    }
  });
});

describe("code mode against a modern-only server", () => {
  it("pmcp exec types count() as a number and runs n + 1", async () => {
    const program = join(dir, "program.ts");
    await writeFile(program, "const n = await inv.count();\nreturn n + 1;\n");
    const result = await runCli(["exec", program, "--stdio", fixtureCommand("v2-server.mjs", "modern"), "--id", "inv", "--json"]);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: true, result: 8 });
  });
});

// One serve exec over a modern-only HTTP server for both: its program checker is started once.
describe("serve exec over a modern-only server", () => {
  let url: string;
  let pidFile: string;

  beforeAll(async () => {
    pidFile = join(dir, "ttl-server.pid");
    const server = spawn(process.execPath, [V2, "modern", "http"], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, TOOLS_TTL_MS: "1000", PID_FILE: pidFile },
    });
    httpServers.push(server);
    const upstream = await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once("line", resolve));
    const exec = spawn(
      process.execPath,
      [join(FIXTURES, "..", "..", "dist/bin/pmcp.js"), "serve", "exec", "--http", "0", "--json", "--endpoint", upstream, "--id", "inv"],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    httpServers.push(exec);
    // "Serving exec on <url>", once it listens.
    url = await new Promise<string>((resolve) =>
      createInterface({ input: exec.stderr! }).on("line", (line) => {
        const found = /^Serving exec on (\S+)$/.exec(line)?.[1];
        if (found !== undefined) resolve(found);
      }),
    );
  });

  describe("serve exec speaks both eras", () => {
    it.each([
      ["a 2026-07-28 client", { pin: "2026-07-28" }, "2026-07-28"],
      ["a 2025-era client", "legacy", "2025-11-25"],
    ] as const)("%s runs a program over HTTP", async (_name, mode, version) => {
      const agent = new Client({ name: "agent", version: "1.0.0" }, { versionNegotiation: { mode } });
      await agent.connect(new StreamableHTTPClientTransport(new URL(url)));
      try {
        expect(agent.getNegotiatedProtocolVersion()).toBe(version);
        const result = await agent.callTool({ name: "execute_program", arguments: { code: "return (await inv.count()) + 1;" } });
        expect(result.structuredContent).toMatchObject({ result: 8, calls: [{ server: "inv", tool: "count", ok: true }] });
      } finally {
        await agent.close();
      }
    });
  });

  describe("a listing's ttlMs decides when long-lived sessions list again", () => {
    it("serve exec lists a stateless HTTP server again when its tools/list ttlMs runs out", async () => {
      const agent = new Client({ name: "agent", version: "1.0.0" }, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await agent.connect(new StreamableHTTPClientTransport(new URL(url)));
      const names = async () => {
        const listed = await agent.callTool({ name: "list_tools", arguments: {} });
        return (listed.structuredContent as { tools: { name: string }[] }).tools.map((tool) => tool.name);
      };
      try {
        expect(await names()).toEqual(["inv/count", "inv/get_stock", "inv/names"]);
        // Over stateless HTTP there is no stream to announce the change on: only the ttl brings it.
        // The server wrote its pid before it answered the listing; 0 would signal this whole process group.
        const pid = Number(await readFile(pidFile, "utf8"));
        expect(Number.isSafeInteger(pid) && pid > 0).toBe(true);
        process.kill(pid, "SIGUSR2");
        const end = Date.now() + 30_000;
        while (!(await names()).includes("inv/added_1")) {
          if (Date.now() > end) throw new Error("the added tool never showed");
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        const result = await agent.callTool({
          name: "execute_program",
          arguments: { code: "const added = await inv.added1(); return added.content.length;" },
        });
        expect(result.structuredContent).toMatchObject({ result: 0 });
      } finally {
        await agent.close();
      }
    });
  });
});
