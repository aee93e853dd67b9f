import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { observationPath } from "@pmcp-codegen/runtime";
import { formatObservationLog } from "@pmcp-codegen/runtime/internal";
import { afterEach, describe, expect, it } from "vitest";
import type { InferredTool } from "../../src/bundle/types.js";
import { CLI, FIXTURES, ROOT, runCli, runInProcess } from "../helpers/cli.js";
import { serveHttp } from "../helpers/http-server.js";
import { observationLogText } from "../helpers/observation-log.js";
import { alive } from "../helpers/processes.js";

/** The runtime's built entry, by path: the generated clients of these projects import it from outside node_modules. */
const RUNTIME = join(ROOT, "packages/runtime/dist/index.js");

/** A running `pmcp dev`, its output so far, and a way to wait for a line. */
interface Dev {
  process: ChildProcess;
  stdout: () => string[];
  stderr: () => string[];
  exited: Promise<number | null>;
}

const running: ChildProcess[] = [];
afterEach(() => {
  for (const child of running.splice(0)) child.kill("SIGKILL");
});

function startDev(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): Dev {
  const child = spawn(process.execPath, [CLI, "dev", ...args], { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  running.push(child);
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString("utf8");
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const lines = (text: string) => text.split("\n").filter((line) => line !== "");
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const dev = { process: child, stdout: () => lines(out), stderr: () => lines(err), exited };
  devs.push(dev);
  return dev;
}

/** The `pmcp dev`s of the running test: what they printed goes into a wait's failure. */
const devs: Dev[] = [];
afterEach(() => {
  devs.splice(0);
});

/**
 * Polls until `check` holds; the machine is loaded, so the limit is generous and no test depends on
 * speed. A wait that runs out says what each `pmcp dev` of the test printed: a lost event and a slow
 * step look alike from here.
 */
async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>): Promise<T> {
  const end = Date.now() + 45_000;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > end) {
      const printed = devs.map(
        (dev) => `pmcp dev printed on stdout:\n${dev.stdout().join("\n")}\nand on stderr:\n${dev.stderr().join("\n")}`,
      );
      throw new Error([`timed out waiting for ${what}`, ...printed].join("\n"));
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * The pid a fixture wrote, once it is there: read between the file's creation and its write it
 * is empty, and `process.kill(0)` would signal this test's own process group.
 */
const readPid = (path: string) =>
  readFile(path, "utf8").then(
    (text) => (/^[1-9]\d*$/.test(text) ? Number(text) : undefined),
    () => undefined,
  );
/** Saves as editors save, whole (a write, then a rename): a watcher never sees a file cut short, whatever the machine's load. */
async function saveWhole(path: string, text: string): Promise<void> {
  await writeFile(`${path}.saving`, text);
  await rename(`${path}.saving`, path);
}

const pidIn = (path: string) => until(`the pid in ${path}`, () => readPid(path));

/** The lines from the `index`th `updated` line on (exclusive) to the next one (inclusive): one regeneration. */
function regeneration(lines: readonly string[], index: number): string[] {
  const ends = lines.flatMap((line, at) => (line.startsWith("updated ") ? [at] : []));
  return lines.slice(index === 0 ? 0 : ends[index - 1]! + 1, ends[index]! + 1);
}

const updates = (dev: Dev) => dev.stdout().filter((line) => line.startsWith("updated ")).length;

async function tempFiles(dir: string): Promise<string[]> {
  const names = await readdir(dir, { recursive: true });
  return names.filter((name) => /\.pmcp-\d+-[0-9a-f]+\.tmp$/.test(name));
}

async function snapshot(path: string) {
  const info = await stat(path);
  return { mtimeMs: info.mtimeMs, ino: info.ino, content: await readFile(path, "utf8") };
}

describe("pmcp dev", () => {
  it("lists a stateless HTTP server again when its tools/list ttlMs runs out", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-ttl-"));
    const pidFile = join(dir, "server.pid");
    const server = spawn(process.execPath, [join(FIXTURES, "v2-server.mjs"), "modern", "http"], {
      stdio: ["ignore", "pipe", "inherit"],
      env: { ...process.env, TOOLS_TTL_MS: "1000", PID_FILE: pidFile },
    });
    running.push(server);
    const [url] = (await once(server.stdout!, "data")).map((chunk: Buffer) => chunk.toString("utf8").trim());
    const dev = startDev(dir, ["--endpoint", url!, "--id", "inv"]);
    await until("the first regeneration", () => updates(dev) === 1);
    process.kill(await pidIn(pidFile), "SIGUSR2");
    await until("the regeneration for the added tool", () => dev.stdout().includes("SAFE      inv/added_1: tool added [tool-added]"));
    dev.process.kill("SIGINT");
    expect(await dev.exited).toBe(0);
  });

  it("follows a 2026-07-28 server's tool changes through subscriptions/listen", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-modern-"));
    const pidFile = join(dir, "server.pid");
    const server = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(FIXTURES, "v2-server.mjs"))} modern`;
    const child = spawn(process.execPath, [CLI, "dev", "--stdio", server, "--id", "inv"], {
      cwd: dir,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, PID_FILE: pidFile },
    });
    running.push(child);
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8");
    });
    await until("the first regeneration", () => out.includes("updated "));
    const pid = await until("the server's pid", () => readPid(pidFile));
    process.kill(pid, "SIGUSR2");
    await until("the regeneration for the added tool", () => out.includes("SAFE      inv/added_1"));
    expect(await readFile(join(dir, "generated/inv.ts"), "utf8")).toContain("  added1(args?: Added1Args");
    const bundle = JSON.parse(await readFile(join(dir, "schemas/mcp-bundle.json"), "utf8"));
    expect(bundle.servers[0].protocolVersion).toBe("2026-07-28");
    child.kill("SIGINT");
    expect(await once(child, "exit")).toEqual([0, null]);
  });

  it("regenerates on list_changed over stdio, coalesces a burst, reconnects a killed server and leaves no process or temp file on SIGINT", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-"));
    const inventoryPid = join(dir, "inventory.pid");
    const warehousePid = join(dir, "warehouse.pid");
    const inventoryLists = join(dir, "inventory.lists");
    const config = {
      mcpServers: {
        inventory: {
          command: process.execPath,
          args: [join(FIXTURES, "dev-server.mjs"), "--burst", "5", "--pid-file", inventoryPid, "--lists-file", inventoryLists],
        },
        warehouse: {
          command: process.execPath,
          args: [join(FIXTURES, "dev-server.mjs"), "--name", "warehouse", "--tools", "2", "--pid-file", warehousePid],
        },
      },
    };
    await writeFile(join(dir, "servers.json"), JSON.stringify(config));
    const dev = startDev(dir, ["--config", "servers.json", "--debounce", "300"]);

    await until("the first regeneration", () => updates(dev) === 1);
    expect(dev.stdout()).toEqual([
      "SAFE      inventory: server added with 1 tool [server-added]",
      "SAFE      warehouse: server added with 2 tools [server-added]",
      "updated schemas/mcp-bundle.json, generated/inventory.ts, generated/warehouse.ts, generated/index.ts",
    ]);
    await until("the watch line", () => dev.stderr().includes("watching for changes; Ctrl-C to stop"));
    expect([...dev.stderr()].sort()).toEqual([
      "inventory: connected (1 tool, stdio)",
      "warehouse: connected (2 tools, stdio)",
      "watching for changes; Ctrl-C to stop",
    ]);
    // index.ts records every tool's quality, so tools added to inventory change it; warehouse's module stays.
    const untouched = () => snapshot(join(dir, "generated/warehouse.ts"));
    const before = await untouched();
    const listings = () => readFile(inventoryLists, "utf8").then(Number);
    const listedAtStart = await listings();

    // Five tools, each with its own list_changed, in one burst: one regeneration.
    const first = await pidIn(inventoryPid);
    process.kill(first, "SIGUSR2");
    await until("the burst's regeneration", () => updates(dev) === 2);
    expect(regeneration(dev.stdout(), 1)).toEqual([
      "SAFE      inventory/added_1: tool added [tool-added]",
      "SAFE      inventory/added_2: tool added [tool-added]",
      "SAFE      inventory/added_3: tool added [tool-added]",
      "SAFE      inventory/added_4: tool added [tool-added]",
      "SAFE      inventory/added_5: tool added [tool-added]",
      "updated schemas/mcp-bundle.json, generated/inventory.ts, generated/index.ts",
    ]);
    const bundle = JSON.parse(await readFile(join(dir, "schemas/mcp-bundle.json"), "utf8"));
    expect(
      bundle.servers.map((server: { id: string; tools: { name: string }[] }) => [server.id, server.tools.map((tool) => tool.name)]),
    ).toEqual([
      ["inventory", ["added_1", "added_2", "added_3", "added_4", "added_5", "get_stock"]],
      ["warehouse", ["get_stock", "tool_1"]],
    ]);
    expect(await readFile(join(dir, "generated/inventory.ts"), "utf8")).toContain("added_5");
    expect(await untouched()).toEqual(before);

    process.kill(first, "SIGUSR1");
    await until("the breaking change", () => updates(dev) === 3);
    expect(regeneration(dev.stdout(), 2)).toEqual([
      'BREAKING  inventory/get_stock /inputSchema/properties/warehouse: property "warehouse" is now required [property-now-required]',
      "updated schemas/mcp-bundle.json, generated/inventory.ts",
    ]);
    // The five notifications of the burst were one listing; the breaking change one more.
    expect((await listings()) - listedAtStart).toBe(2);

    // A server that dies is started again and listed again; `pmcp dev` keeps running.
    process.kill(first, "SIGKILL");
    const second = await until("a new inventory process", async () => {
      const pid = await readPid(inventoryPid);
      return pid !== first && pid;
    });
    await until("the re-listing after the restart", () => updates(dev) === 4);
    expect(dev.stderr().slice(3)).toEqual([
      "inventory: connection lost: the server closed the connection; reconnecting",
      "inventory: reconnected (1 tool, stdio)",
    ]);
    expect(regeneration(dev.stdout(), 3)).toEqual([
      "BREAKING  inventory/added_1: tool removed [tool-removed]",
      "BREAKING  inventory/added_2: tool removed [tool-removed]",
      "BREAKING  inventory/added_3: tool removed [tool-removed]",
      "BREAKING  inventory/added_4: tool removed [tool-removed]",
      "BREAKING  inventory/added_5: tool removed [tool-removed]",
      'SAFE      inventory/get_stock /inputSchema/properties/warehouse: property "warehouse" is now optional [property-now-optional]',
      "updated schemas/mcp-bundle.json, generated/inventory.ts, generated/index.ts",
    ]);
    process.kill(second, "SIGUSR2");
    await until("a change from the restarted server", () => updates(dev) === 5);
    // The same files `pmcp generate` makes from that bundle.
    const check = await runCli(["generate", "--check"], { cwd: dir });
    expect([check.code, check.stdout]).toEqual([0, "generated is up to date\n"]);

    dev.process.kill("SIGINT");
    expect(await dev.exited).toBe(0);
    const warehouse = await pidIn(warehousePid);
    expect([alive(first), alive(second), alive(warehouse)]).toEqual([false, false, false]);
    expect(await tempFiles(dir)).toEqual([]);
    expect(dev.stderr().filter((line) => /^\s+at /.test(line))).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it("follows a Streamable HTTP server that changes between two listings, and one restarted on the same port", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-http-"));
    const urlFile = join(dir, "url");
    const startServer = (port: string) => {
      const child = spawn(process.execPath, [join(FIXTURES, "dev-server.mjs"), "--http", "--port", port, "--url-file", urlFile], {
        stdio: "ignore",
      });
      running.push(child);
      return child;
    };
    const server = startServer("0");
    const url = await until("the server's URL", () => readFile(urlFile, "utf8").catch(() => undefined));
    const dev = startDev(dir, ["--endpoint", url, "--id", "inventory", "--debounce", "200"]);
    await until("the first regeneration", () => updates(dev) === 1);
    await until("the watch line", () => dev.stderr().includes("watching for changes; Ctrl-C to stop"));

    server.kill("SIGUSR2");
    await until("the second listing", () => updates(dev) === 2);
    expect(regeneration(dev.stdout(), 1)).toEqual([
      "SAFE      inventory/added_1: tool added [tool-added]",
      "updated schemas/mcp-bundle.json, generated/inventory.ts, generated/index.ts",
    ]);

    server.kill("SIGKILL");
    await until("the lost connection", () => dev.stderr().some((line) => line.startsWith("inventory: connection lost: ")));
    await rm(urlFile);
    const restarted = startServer(new URL(url).port);
    await until("the restarted server", () => readFile(urlFile, "utf8").catch(() => undefined));
    await until("the reconnection", () => updates(dev) === 3);
    expect(dev.stderr().at(-1)).toBe("inventory: reconnected (1 tool, streamable-http)");
    expect(regeneration(dev.stdout(), 2)).toEqual([
      "BREAKING  inventory/added_1: tool removed [tool-removed]",
      "updated schemas/mcp-bundle.json, generated/inventory.ts, generated/index.ts",
    ]);
    restarted.kill("SIGUSR2");
    await until("a change from the restarted server", () => updates(dev) === 4);

    dev.process.kill("SIGINT");
    expect(await dev.exited).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it("connects a server added to pmcp.config while it runs, and closes one removed, removing its module", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-config-"));
    const server = (name: string) => ({
      command: process.execPath,
      args: [join(FIXTURES, "dev-server.mjs"), "--name", name, "--pid-file", join(dir, `${name}.pid`)],
    });
    const writeConfig = (servers: Record<string, unknown>) =>
      saveWhole(join(dir, "pmcp.config.json"), JSON.stringify({ servers, bundle: "mcp.json", output: "clients" }));
    await writeConfig({ inventory: server("inventory") });
    const dev = startDev(dir, ["--debounce", "200"]);
    await until("the first regeneration", () => updates(dev) === 1);
    await until("the watch line", () => dev.stderr().includes("watching for changes; Ctrl-C to stop"));
    expect(await readdir(join(dir, "clients"))).toEqual(["index.ts", "inventory.ts"]);

    await writeConfig({ inventory: server("inventory"), billing: server("billing") });
    await until("the added server's module", () => updates(dev) === 2);
    expect(regeneration(dev.stdout(), 1)).toEqual([
      "SAFE      billing: server added with 1 tool [server-added]",
      "updated mcp.json, clients/billing.ts, clients/index.ts",
    ]);
    expect((await readdir(join(dir, "clients"))).sort()).toEqual(["billing.ts", "index.ts", "inventory.ts"]);
    const billing = await pidIn(join(dir, "billing.pid"));

    await writeConfig({ inventory: server("inventory") });
    await until("the removed server's module to go", () => updates(dev) === 3);
    expect(regeneration(dev.stdout(), 2)).toEqual([
      "BREAKING  billing: server removed [server-removed]",
      "updated mcp.json, clients/index.ts, clients/billing.ts (removed)",
    ]);
    expect(dev.stderr()).toContain("billing: closed (no longer configured)");
    expect(await readdir(join(dir, "clients"))).toEqual(["index.ts", "inventory.ts"]);
    await until("the removed server's process to end", () => !alive(billing));

    // A config that no longer loads leaves the servers as they were.
    await saveWhole(join(dir, "pmcp.config.json"), "{ not json");
    await until("the warning", () => dev.stderr().some((line) => line.startsWith("warning: ")));
    expect(dev.stderr().filter((line) => line.startsWith("warning: "))).toEqual([
      expect.stringMatching(/^warning: .*pmcp\.config\.json.*; keeping the previous settings$/),
    ]);
    expect(updates(dev)).toBe(3);

    // Fixed, it is read again and applied.
    await writeConfig({ inventory: server("inventory"), billing: server("billing") });
    await until("the fixed config applied", () => updates(dev) === 4);
    expect(regeneration(dev.stdout(), 3)).toEqual([
      "SAFE      billing: server added with 1 tool [server-added]",
      "updated mcp.json, clients/billing.ts, clients/index.ts",
    ]);

    dev.process.kill("SIGINT");
    expect(await dev.exited).toBe(0);
    expect(alive(await pidIn(join(dir, "inventory.pid")))).toBe(false);
    expect(alive(await pidIn(join(dir, "billing.pid")))).toBe(false);
    await rm(dir, { recursive: true, force: true });
  });
  it("loads pmcp.config.ts again after an edit, and renders again when a template in its templates folder, or another folder it names, changes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-ts-"));
    await cp(join(ROOT, "templates"), join(dir, "tpl"), { recursive: true });
    const writeConfig = (names: string[], templates = "tpl") =>
      saveWhole(
        join(dir, "pmcp.config.ts"),
        `const fixture: string = ${JSON.stringify(join(FIXTURES, "dev-server.mjs"))};
export default {
  templates: "${templates}",
  servers: { ${names.map((name) => `${name}: { command: ${JSON.stringify(process.execPath)}, args: [fixture, "--name", "${name}"] }`).join(", ")} },
};
`,
      );
    await writeConfig(["inventory"]);
    const dev = startDev(dir, ["--debounce", "200"]);
    await until("the first regeneration", () => updates(dev) === 1);
    await until("the watch line", () => dev.stderr().includes("watching for changes; Ctrl-C to stop"));

    await writeConfig(["inventory", "billing"]);
    await until("the added server", () => updates(dev) === 2);
    expect(regeneration(dev.stdout(), 1)).toEqual([
      "SAFE      billing: server added with 1 tool [server-added]",
      "updated schemas/mcp-bundle.json, generated/billing.ts, generated/index.ts",
    ]);

    const template = join(dir, "tpl/server.ts.hbs");
    await saveWhole(template, `// edited while pmcp dev runs\n${await readFile(template, "utf8")}`);
    await until("the modules rendered again", () => updates(dev) === 3);
    expect(regeneration(dev.stdout(), 2)).toEqual(["updated generated/billing.ts, generated/inventory.ts"]);
    expect(await readFile(join(dir, "generated/inventory.ts"), "utf8")).toMatch(/^\/\/ edited while pmcp dev runs\n/);

    // Another templates folder named in pmcp.config is used, and watched from then on.
    await cp(join(ROOT, "templates"), join(dir, "tpl2"), { recursive: true });
    await writeConfig(["inventory", "billing"], "tpl2");
    await until("the modules from the other folder", () => updates(dev) === 4);
    await until("the other folder watched", () =>
      dev.stderr().some((line) => /^templates now from .*tpl2; watching for changes$/.test(line)),
    );
    const second = join(dir, "tpl2/server.ts.hbs");
    await saveWhole(second, `// edited in the second folder\n${await readFile(second, "utf8")}`);
    await until("the modules rendered from the edited second folder", () => updates(dev) === 5);
    expect(regeneration(dev.stdout(), 4)).toEqual(["updated generated/billing.ts, generated/inventory.ts"]);
    expect(await readFile(join(dir, "generated/inventory.ts"), "utf8")).toMatch(/^\/\/ edited in the second folder\n/);

    dev.process.kill("SIGINT");
    expect(await dev.exited).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });

  it("keeps trying a server it cannot reach at the start until it answers, and rejects bad flags with one line and exit 2", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-down-"));
    // A port nothing listens on: one the system just handed out and took back.
    const probe = createServer().listen(0, "127.0.0.1");
    await once(probe, "listening");
    const { port } = probe.address() as AddressInfo;
    await new Promise((resolve) => probe.close(resolve));
    const dev = startDev(dir, ["--endpoint", `http://127.0.0.1:${port}/mcp`, "--id", "late"]);
    await until("the watch line", () => dev.stderr().includes("watching for changes; Ctrl-C to stop"));
    expect(dev.stderr()[0]).toBe("late: cannot connect: cannot reach the server: ECONNREFUSED; reconnecting");
    const server = spawn(process.execPath, [join(FIXTURES, "dev-server.mjs"), "--http", "--port", String(port)], { stdio: "ignore" });
    running.push(server);
    await until("the late server's module", () => updates(dev) === 2);
    expect(regeneration(dev.stdout(), 1)).toEqual([
      "SAFE      late: server added with 1 tool [server-added]",
      "updated schemas/mcp-bundle.json, generated/late.ts, generated/index.ts",
    ]);
    expect(dev.stderr().at(-1)).toBe("late: connected (1 tool, streamable-http)");
    dev.process.kill("SIGINT");
    expect(await dev.exited).toBe(0);

    // Usage errors end before anything starts: the CLI's run in this process, whose folder holds no pmcp.config.
    const bad = await runInProcess(["dev", "--stdio", "node x.js", "--debounce", "-5"]);
    expect([bad.code, bad.stderr]).toEqual([
      2,
      "pmcp: --debounce must be a whole number of milliseconds from 0 to 60000, got -5\npmcp: run 'pmcp --help' for usage\n",
    ]);
    const nothing = await runInProcess(["dev"]);
    expect([nothing.code, nothing.stderr]).toEqual([
      2,
      `pmcp: nothing to watch: give --endpoint <url>, --stdio "<command>" or --config <file>, or list servers in pmcp.config\npmcp: run 'pmcp --help' for usage\n`,
    ]);
    await rm(dir, { recursive: true, force: true });
  });
  it("lists every server again when pmcp.config is saved: a stateless HTTP server, which cannot announce a change, and one that went away; SIGHUP ends it with 0", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-stateless-"));
    let tools = [{ name: "get_stock", inputSchema: { type: "object" } }];
    const http = await serveHttp(
      () => {
        const server = new Server({ name: "stateless", version: "1.0.0" }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
        return server;
      },
      { transport: "streamable-http" },
    );
    const config = JSON.stringify({ servers: { stateless: { url: http.url } } });
    await writeFile(join(dir, "pmcp.config.json"), config);
    const dev = startDev(dir, ["--debounce", "200"]);
    await until("the watch line", () => dev.stderr().includes("watching for changes; Ctrl-C to stop"));
    expect(updates(dev)).toBe(1);

    tools = [...tools, { name: "set_stock", inputSchema: { type: "object" } }];
    await saveWhole(join(dir, "pmcp.config.json"), config);
    await until("the second listing", () => updates(dev) === 2);
    expect(regeneration(dev.stdout(), 1)).toEqual([
      "SAFE      stateless/set_stock: tool added [tool-added]",
      "updated schemas/mcp-bundle.json, generated/stateless.ts, generated/index.ts",
    ]);

    await http.close();
    await saveWhole(join(dir, "pmcp.config.json"), config);
    await until("the lost server", () => dev.stderr().some((line) => line.startsWith("stateless: connection lost: ")));
    expect(dev.stderr().at(-1)).toBe("stateless: connection lost: cannot list tools: fetch failed; reconnecting");
    // Its module stays: the server may come back.
    expect(await readdir(join(dir, "generated"))).toEqual(["index.ts", "stateless.ts"]);
    expect(updates(dev)).toBe(2);

    dev.process.kill("SIGHUP");
    expect(await dev.exited).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });
  it("prints one JSON object per regeneration under --json, and ends with 0 on SIGTERM", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-json-"));
    const pidFile = join(dir, "inventory.pid");
    const dev = startDev(dir, [
      "--json",
      "--stdio",
      `${JSON.stringify(process.execPath)} ${JSON.stringify(join(FIXTURES, "dev-server.mjs"))} --pid-file ${JSON.stringify(pidFile)}`,
      "--id",
      "inventory",
    ]);
    await until("the watch line", () => dev.stderr().includes("watching for changes; Ctrl-C to stop"));
    process.kill(await pidIn(pidFile), "SIGUSR2");
    await until("the second regeneration", () => dev.stdout().length === 2);
    expect(dev.stdout().map((line) => JSON.parse(line))).toEqual([
      {
        changes: [{ server: "inventory", level: "safe", rule: "server-added", pointer: "/", message: "server added with 1 tool" }],
        quality: [],
        written: ["schemas/mcp-bundle.json", "generated/inventory.ts", "generated/index.ts"],
        removed: [],
      },
      {
        changes: [{ server: "inventory", tool: "added_1", level: "safe", rule: "tool-added", pointer: "/", message: "tool added" }],
        quality: [],
        written: ["schemas/mcp-bundle.json", "generated/inventory.ts", "generated/index.ts"],
        removed: [],
      },
    ]);
    dev.process.kill("SIGTERM");
    expect(await dev.exited).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });
  /** Starts dev, waits until it watches, and stops it: one start, with whatever it printed on stdout. */
  async function startAndStop(dir: string, args: readonly string[]): Promise<string[]> {
    const dev = startDev(dir, args);
    await until("the watch line", () => dev.stderr().includes("watching for changes; Ctrl-C to stop"));
    dev.process.kill("SIGINT");
    expect(await dev.exited).toBe(0);
    return dev.stdout();
  }

  /** Every file dev wrote, with its bytes, inode and modification time. */
  async function written(dir: string) {
    const modules = (await readdir(join(dir, "generated"))).sort().map((name) => join("generated", name));
    return Promise.all(["schemas/mcp-bundle.json", ...modules].map(async (file) => [file, await snapshot(join(dir, file))]));
  }

  it("leaves an unchanged bundle and its modules as they were when it starts again (same inode and modification time), with blocks learned and a server it cannot reach", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-restart-"));
    const config = (everything: string) =>
      writeFile(
        join(dir, "mcp.json"),
        JSON.stringify({
          mcpServers: {
            // Lists tools with _meta, and annotations and execution after outputSchema: keys in an order of its own.
            everything: {
              command: process.execPath,
              args: [join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist", everything)],
            },
            learning: { command: process.execPath, args: [join(FIXTURES, "learning-server.mjs")] },
          },
        }),
      );
    // Ten observations of learning/count, learned into the bundle's inferred block at the first start.
    const at = "2026-01-01T00:00:00.000Z";
    const log = observationPath(join(dir, "observations"), "learning", "count");
    await mkdir(dirname(log), { recursive: true });
    const header = {
      format: "pmcp-observations/1" as const,
      server: "learning",
      tool: "count",
      seen: 10,
      firstSeen: at,
      lastSeen: at,
      redacted: false,
    };
    await writeFile(log, formatObservationLog({ header, samples: Array.from({ length: 10 }, (_, count) => ({ at, value: { count } })) }));
    const args = ["--config", "mcp.json", "--observations", "observations", "--debounce", "0", "--runtime-import", RUNTIME];
    await config("index.js");
    expect((await startAndStop(dir, args)).filter((line) => line.startsWith("updated "))).toEqual([
      "updated schemas/mcp-bundle.json, generated/everything.ts, generated/learning.ts, generated/index.ts",
    ]);
    const learned = JSON.parse(await readFile(join(dir, "schemas/mcp-bundle.json"), "utf8")).servers[1].inferred;
    expect(learned.map(({ tool }: InferredTool) => tool)).toEqual(["count"]);
    const before = await written(dir);

    // everything cannot be reached now: its entry of the bundle on disk stays as it is there.
    await config("missing.js");
    expect(await startAndStop(dir, args)).toEqual([]);
    expect(await written(dir)).toEqual(before);
    await rm(dir, { recursive: true, force: true });
  });

  it("leaves a bundle as it was when it starts again with servers whose ids come from their names", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-restart-names-"));
    // Until a server answers, its id is not known, nor which entry of the bundle is its.
    const args = [
      "--stdio",
      `${JSON.stringify(process.execPath)} ${JSON.stringify(join(FIXTURES, "learning-server.mjs"))}`,
      "--stdio",
      `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, "node_modules/@modelcontextprotocol/server-everything/dist/index.js"))}`,
      "--debounce",
      "0",
      "--runtime-import",
      RUNTIME,
    ];
    expect((await startAndStop(dir, args)).filter((line) => line.startsWith("updated "))).toHaveLength(1);
    const before = await written(dir);
    expect(await startAndStop(dir, args)).toEqual([]);
    expect(await written(dir)).toEqual(before);
    await rm(dir, { recursive: true, force: true });
  });
});

describe("pmcp dev --observations", () => {
  /** A program of the user's: calls each tool its times through the generated client, in order, observing into `observations`. */
  async function call(dir: string, ...calls: [tool: "count" | "news", times: number][]): Promise<void> {
    const script = join(dir, "call.mjs");
    await writeFile(
      script,
      [
        `import { createJiti } from ${JSON.stringify(pathToFileURL(join(ROOT, "node_modules/jiti/lib/jiti.mjs")).href)};`,
        "const jiti = createJiti(import.meta.url);",
        `const rt = await jiti.import(${JSON.stringify(RUNTIME)});`,
        `const { LearningClient } = await jiti.import(${JSON.stringify(join(dir, "generated/index.ts"))});`,
        "const client = new rt.CompositionClient({",
        `  servers: { learning: { command: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(join(FIXTURES, "learning-server.mjs"))}] } },`,
        `  observe: { dir: ${JSON.stringify(join(dir, "observations"))} },`,
        "});",
        "const learning = new LearningClient(client);",
        ...calls.map(([tool, times]) => `for (let call = 0; call < ${times}; call++) await learning.${tool}();`),
        "await client.close();",
      ].join("\n"),
    );
    const child = spawn(process.execPath, [script], { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk.toString("utf8");
    });
    const [code] = await once(child, "exit");
    expect([code, err]).toEqual([0, ""]);
  }

  it("types a tool's result from the calls another process observes, with no other command; SIGINT leaves no process or temp file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-observe-"));
    const pidFile = join(dir, "learning.pid");
    const server = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(FIXTURES, "learning-server.mjs"))}`;
    const dev = startDev(dir, ["--stdio", server, "--id", "learning", "--observations", "observations", "--runtime-import", RUNTIME], {
      PID_FILE: pidFile,
    });
    await until("the watch line", () => dev.stderr().includes("watching for changes; Ctrl-C to stop"));
    const module = join(dir, "generated/learning.ts");
    expect(await readFile(module, "utf8")).toContain("export type CountResult = rt.ToolResult;");

    await call(dir, ["count", 1]);
    await until("the first observation learned", () => updates(dev) === 2);
    expect(regeneration(dev.stdout(), 1)).toEqual([
      "learning/count: none → low (1 observation)",
      "updated schemas/mcp-bundle.json, generated/learning.ts, generated/index.ts",
    ]);
    expect(await readFile(module, "utf8")).toMatch(/export type CountResult = \{\n {2}count: number;\n\};/);

    // Nine more, ten consistent observations in all: medium.
    await call(dir, ["count", 9]);
    await until("the level crossed", () => updates(dev) === 3);
    expect(regeneration(dev.stdout(), 2)).toEqual([
      "learning/count: low → medium (10 observations)",
      "updated schemas/mcp-bundle.json, generated/learning.ts, generated/index.ts",
    ]);
    const learned = JSON.parse(await readFile(join(dir, "schemas/mcp-bundle.json"), "utf8")).servers[0].inferred;
    expect(
      learned.map(({ tool, schema, observations, quality, consistency }: InferredTool) => ({
        tool,
        schema,
        observations,
        quality,
        consistency,
      })),
    ).toEqual([
      {
        tool: "count",
        schema: { type: "object", properties: { count: { type: "integer" } }, required: ["count"] },
        observations: 10,
        quality: "medium",
        consistency: 1,
      },
    ]);

    // One more count changes counts only, which rewrite nothing; the next tool learned shows it was read.
    const countType = async () => (await readFile(module, "utf8")).split("\n").filter((line) => line.includes("`count` tool"));
    const countTypeBefore = await countType();
    await call(dir, ["count", 1], ["news", 1]);
    await until("the news tool learned", () => updates(dev) === 4);
    expect(regeneration(dev.stdout(), 3)).toEqual([
      "learning/news: none → low (1 observation)",
      "updated schemas/mcp-bundle.json, generated/learning.ts, generated/index.ts",
    ]);
    const blocks = JSON.parse(await readFile(join(dir, "schemas/mcp-bundle.json"), "utf8")).servers[0].inferred;
    expect(blocks.map((block: InferredTool) => [block.tool, block.observations])).toEqual([
      ["count", 10],
      ["news", 1],
    ]);
    expect(await countType()).toEqual(countTypeBefore);
    dev.process.kill("SIGINT");
    expect(await dev.exited).toBe(0);
    expect(alive(await pidIn(pidFile))).toBe(false);
    expect(await tempFiles(dir)).toEqual([]);
    expect((await readdir(join(dir, "observations"), { recursive: true })).sort()).toEqual([
      "learning",
      join("learning", "count.jsonl"),
      join("learning", "news.jsonl"),
    ]);
    expect(dev.stderr().filter((line) => line.startsWith("warning: ") || /^\s+at /.test(line))).toEqual([]);
    await rm(dir, { recursive: true, force: true });
  });

  it("follows pmcp.config's observe.dir, relative to the config file, and another folder once the config names it, keeps blocks another process wrote; --json carries the changes", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-dev-observe-config-"));
    const project = join(dir, "project");
    await mkdir(project);
    const writeConfig = (logs: string) =>
      saveWhole(
        join(project, "pmcp.config.json"),
        JSON.stringify({
          servers: { learning: { command: process.execPath, args: [join(FIXTURES, "learning-server.mjs")] } },
          observe: { dir: logs },
        }),
      );
    /** A log as another process writes one: the whole file renamed over the old. */
    const writeLog = async (logs: string, tool: string, values: unknown[]) => {
      const path = observationPath(join(project, logs), "learning", tool);
      await mkdir(dirname(path), { recursive: true });
      await saveWhole(path, observationLogText("learning", tool, values));
    };
    await writeConfig("../logs");
    const dev = startDev(project, ["--json"]);
    await until("the watch line", () => dev.stderr().includes("watching for changes; Ctrl-C to stop"));
    expect(dev.stdout().length).toBe(1);

    await writeLog(
      "../logs",
      "count",
      Array.from({ length: 10 }, (_, count) => ({ count })),
    );
    await until("the learned tool", () => dev.stdout().length === 2);
    expect(JSON.parse(dev.stdout()[1]!)).toEqual({
      changes: [],
      quality: [
        {
          kind: "improved",
          server: "learning",
          tool: "count",
          observations: 10,
          from: { source: "unknown", quality: "none" },
          to: { source: "inferred", quality: "medium" },
        },
      ],
      written: ["schemas/mcp-bundle.json", "generated/learning.ts", "generated/index.ts"],
      removed: [],
    });

    // Another process (serve exec --learn) writes a block into the bundle: dev's next write keeps it.
    const bundlePath = join(project, "schemas/mcp-bundle.json");
    const onDisk = JSON.parse(await readFile(bundlePath, "utf8"));
    const deep = { ...onDisk.servers[0].inferred[0], tool: "deep", schema: { type: "object" }, quality: "low", fields: [] };
    onDisk.servers[0].inferred = [onDisk.servers[0].inferred[0], deep];
    await saveWhole(bundlePath, `${JSON.stringify(onDisk, null, 2)}\n`);

    await writeConfig("logs");
    await until("the other folder watched", () => dev.stderr().includes("observations now from logs; watching for changes"));
    await writeLog("logs", "news", [{ a: 1 }]);
    // The config's reload regenerates too, and may come apart from the log's: the block written
    // beside dev is then in the one, the tool learned in the other.
    const qualityLines = () =>
      dev
        .stdout()
        .slice(2)
        .flatMap((line) => JSON.parse(line).quality as { tool: string }[]);
    await until("the tool learned from the other folder", () => qualityLines().some((change) => change.tool === "news"));
    expect(qualityLines()).toEqual([
      {
        kind: "improved",
        server: "learning",
        tool: "deep",
        observations: 10,
        from: { source: "unknown", quality: "none" },
        to: { source: "inferred", quality: "low" },
      },
      {
        kind: "improved",
        server: "learning",
        tool: "news",
        observations: 1,
        from: { source: "unknown", quality: "none" },
        to: { source: "inferred", quality: "low" },
      },
    ]);
    // What was learned from the first folder stays, and so does what the other process wrote.
    const bundle = JSON.parse(await readFile(bundlePath, "utf8"));
    expect(bundle.servers[0].inferred.map((block: InferredTool) => [block.tool, block.quality])).toEqual([
      ["count", "medium"],
      ["deep", "low"],
      ["news", "low"],
    ]);
    dev.process.kill("SIGINT");
    expect(await dev.exited).toBe(0);
    await rm(dir, { recursive: true, force: true });
  });
});
