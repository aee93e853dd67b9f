import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT, runCli, runInProcess } from "../helpers/cli.js";
import { loadedBy, packageOf } from "../helpers/loaded-modules.js";

describe("pmcp command line", () => {
  // Every command's flags are read before any runs: had a flag's module imported the runtime's index, each
  // `pmcp` run, `--version` too, loaded zod's hundred modules and OpenTelemetry first (0.6 s of 0.8 s).
  it("reads its commands and flags with yargs alone: no zod, SDK, OpenTelemetry or compiler before a command runs", async () => {
    const { urls, required } = await loadedBy(join(ROOT, "dist/cli/program.js"));
    const files = [...urls.filter((url) => url.startsWith("file:")).map((url) => fileURLToPath(url)), ...required];
    const packages = files.filter((file) => file.startsWith(join(ROOT, "node_modules/"))).map(packageOf);
    expect([...new Set(packages)].sort()).toEqual([
      "cliui",
      "escalade",
      "get-caller-file",
      "require-directory",
      "y18n",
      "yargs",
      "yargs-parser",
    ]);
  });

  it("--help lists commands and every export flag", async () => {
    const top = await runInProcess(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/^ {2}pmcp schema +Export and check tool schema bundles$/m);
    expect(top.stdout).toMatch(/^ {2}pmcp serve +Run an MCP server for agents: inspect or exec$/m);
    const help = await runInProcess(["schema", "export", "--help"]);
    expect(help.code).toBe(0);
    for (const flag of [
      "--endpoint",
      "--stdio",
      "--config",
      "--server",
      "--id",
      "--header",
      "--timeout",
      "--concurrency",
      "--output",
      "--format",
      "--check",
      "--allow-partial",
      "--json",
      "--quiet",
      "--debug",
    ]) {
      expect(help.stdout).toContain(flag);
    }
  });

  it.each([
    [
      ["schema", "discover"],
      ["--samples", "--observations", "--allow-tool", "--max-samples", "--redact", "--stdio", "--config", "--header"],
    ],
    [
      ["schema", "infer"],
      ["--schema", "--observations", "--output"],
    ],
    [["schema", "validate"], ["--schema"]],
    [
      ["schema", "diff"],
      ["--schema", "--fail-on", "--format"],
    ],
    [
      ["schema", "normalize"],
      ["--schema", "--profile", "--output"],
    ],
    [
      ["schema", "lint"],
      ["--schema", "--profile", "--format"],
    ],
    [["report"], ["--schema", "--format"]],
    [["generate"], ["--schema", "--min-quality", "--observations"]],
    [["dev"], ["--bundle", "--observations", "--debounce"]],
    [["inspect"], ["--schema", "--json"]],
    [
      ["serve", "inspect"],
      ["--schema", "--http", "--profile"],
    ],
    [
      ["serve", "exec"],
      [
        "--config",
        "--stdio",
        "--schema",
        "--http",
        "--max-time-ms",
        "--max-heap-mb",
        "--max-calls",
        "--max-concurrent-calls",
        "--max-output-bytes",
        "--observe",
        "--learn",
        "--min-quality",
        "--profile",
      ],
    ],
    [["exec"], ["--config", "--stdio", "--max-time-ms", "--max-output-bytes", "--observe"]],
    [
      ["tools", "from-source"],
      ["--output", "--cache"],
    ],
  ])("%j --help describes every flag", async (command, flags) => {
    const help = await runInProcess([...command, "--help"]);
    expect(help.code).toBe(0);
    for (const flag of flags) expect(help.stdout).toContain(flag);
  });

  // yargs 17's ESM build wrapped help every 80 characters, inside words: "sandb ox", "obs ervations".
  it.each([
    [["serve"], "Run an MCP server for agents: inspect or exec"],
    [["serve", "exec"], "list_tools, inspect_tool and execute_program (type-checked TypeScript in a sandbox) over live servers"],
    [
      ["serve", "exec"],
      "Programs that run at once, each in its own sandbox thread; more wait, and waiting counts against their time (default 8)",
    ],
    [["schema", "discover"], "Folder of the observation logs (one JSONL file per server and tool)"],
    [
      ["schema", "export"],
      "Bundle file, or folder for pmcp-foundation (default: pmcp.config bundle, else schemas/mcp-bundle.json; schemas/)",
    ],
  ])("%j --help wraps between words: %s", async (command, text) => {
    const help = await runInProcess([...command, "--help"]);
    expect(help.stdout.split("\n").every((line) => line.length <= 80)).toBe(true);
    expect(help.stdout.replace(/\s+/g, " ")).toContain(text);
  });

  it("a whole-number flag shows its default and bounds in the help, and no type of text", async () => {
    const help = (await runInProcess(["serve", "exec", "--help"])).stdout.replace(/\s+/g, " ");
    expect(help).toContain("--max-calls Tool calls one program may make (default 200) --max-concurrent-calls");
    expect(help).toContain(
      "--max-time-ms Wall time of a program in ms from its arrival, type-check included; also its CPU deadline (default 30000, at most 2147483647) --max-heap-mb",
    );
  });

  it("a group's usage names its commands", async () => {
    expect((await runInProcess(["serve", "--help"])).stdout.split("\n")[0]).toBe("pmcp serve <inspect|exec>");
    expect((await runInProcess(["schema", "--help"])).stdout.split("\n")[0]).toBe("pmcp schema <command>");
  });

  it("--version prints the package version", async () => {
    const result = await runInProcess(["--version"]);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it.each([
    [["schema", "export", "--bogus"], /^pmcp: Unknown argument: --bogus$/],
    // yargs-parser adds the camelCase twin of every dashed key; the user typed one flag.
    [["schema", "export", "--bogus-flag"], /^pmcp: Unknown argument: --bogus-flag$/],
    [["schema", "export", "extra", "--no-bogus-flag", "-x"], /^pmcp: Unknown arguments: --no-bogus-flag, -x, extra$/],
    [["frobnicate"], /^pmcp: Unknown argument: frobnicate$/],
    [["schema"], /^pmcp: name a schema command: export, discover, infer, validate, diff, normalize or lint$/],
    [["tools"], /^pmcp: name a tools command: from-source$/],
    [["serve"], /^pmcp: name a server: inspect or exec$/],
    [["exec"], /^pmcp: exec: missing <file>$/],
    [["inspect"], /^pmcp: inspect: missing <tool>$/],
    [["schema", "export"], /nothing to export/],
    [["schema", "export", "--config", "/no/such/mcp.json"], /cannot read config file \/no\/such\/mcp\.json: ENOENT/],
    [["schema", "export", "--stdio", "a", "--stdio", "b", "--id", "x"], /--id names the server of a single/],
    [["schema", "export", "--stdio", "a", "--id", "../up"], /--id "\.\.\/up": a server id is/],
    [["schema", "export", "--stdio", "node a.js | tee log"], /shell operators/],
    [["schema", "export", "--endpoint", "ftp://example.com"], /only http and https URLs/],
    [["schema", "export", "--endpoint", "http://127.0.0.1:1/mcp", "--timeout", "0"], /--timeout must be a positive/],
    [["schema", "export", "--endpoint", "http://127.0.0.1:1/mcp", "--timeout", "1e12"], /--timeout must be at most 2147483647 ms/],
    [["schema", "export", "--endpoint", "http://127.0.0.1:1/mcp", "--header", "no colon"], /expected "Name: value"/],
    // A flag given last without its value used to parse as absent, keeping the default silently.
    [["schema", "export", "--endpoint", "http://127.0.0.1:1/mcp", "--timeout"], /^pmcp: Not enough arguments following: timeout$/],
    [["generate", "-o"], /^pmcp: Not enough arguments following: o$/],
    [["generate", "--runtime-import", ""], /^pmcp: --runtime-import must name a module, got an empty string$/],
    [["schema", "export", "--server", "x"], /--server picks entries of a --config file/],
    [["schema", "validate", "--schema", "/no/such/bundle.json"], /\/no\/such\/bundle\.json: no such file or folder/],
    [["schema", "diff"], /^pmcp: schema diff: missing <old>$/],
    [["schema", "lint", "--schema", "/no/such.json", "--profile", "gpt"], /--profile names unknown providers: gpt \(choose from /],
    [["schema", "infer", "--observations", "o", "--bogus"], /^pmcp: Unknown argument: --bogus$/],
    [["report", "--format", "html"], /^pmcp: --format must be one of "table", "markdown", got "html"$/],
    [["generate", "--min-quality", "great"], /^pmcp: --min-quality must be one of "none", "low", "medium", "high", got "great"$/],
    [
      ["generate", "--schema", "schemas/mcp-bundle.json", "--templates", "/no/such/folder", "-o", "/tmp/pmcp-never"],
      /templates folder \/no\/such\/folder: no such folder/,
    ],
    [
      ["generate", "--schema", "schemas/mcp-bundle.json", "--templates", "test", "-o", "/tmp/pmcp-never"],
      /templates folder test has neither server\.ts\.hbs nor index\.ts\.hbs/,
    ],
    [["serve", "frobnicate"], /^pmcp: Unknown argument: frobnicate$/],
    [["serve", "inspect", "--http", "99999"], /^pmcp: --http must be a whole number from 0 to 65535, got 99999$/],
    // A host:port, as other servers take it: both serve commands say what was given (a port only: they serve on 127.0.0.1).
    [["serve", "exec", "--http", "0.0.0.0:8080"], /^pmcp: --http must be a whole number from 0 to 65535, got "0\.0\.0\.0:8080"$/],
    [["serve", "inspect", "--http", "0.0.0.0:8080"], /^pmcp: --http must be a whole number from 0 to 65535, got "0\.0\.0\.0:8080"$/],
    [["schema", "export", "--stdio", "node x.js", "--concurrency", "1.5"], /^pmcp: --concurrency must be a whole number ≥ 1, got 1.5$/],
    [["exec", "x.ts", "--max-calls", "0x"], /^pmcp: --max-calls must be a whole number ≥ 1, got "0x"$/],
    [["exec", "x.ts", "--max-calls"], /^pmcp: Not enough arguments following: max-calls$/],
    [["tools", "from-source"], /^pmcp: tools from-source: missing <file>$/],
    [["tools", "from-source", "/no/such/tools.ts"], /\/no\/such\/tools\.ts: no such file/],
    [
      ["schema", "discover", "--stdio", "node x.js", "--observations", "o", "--max-samples", "0"],
      /^pmcp: --max-samples must be a whole number ≥ 1, got 0$/,
    ],
  ])("usage error %j exits 2 with one clear line", async (args, expected) => {
    const result = await runInProcess(args);
    expect(result.code).toBe(2);
    expect(result.stderr.split("\n")[0]).toMatch(expected);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it("config files: bad JSON, wrong shape and unknown --server are usage errors that name the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-cli-"));
    const cases: [string, string, string[], RegExp][] = [
      ["bad.json", "{", [], /bad\.json is not valid JSON/],
      ["shape.json", '{"servers": {"a": {"cmd": "x"}}}', [], /shape\.json at servers\.a: expected \{command/],
      ["ok.json", '{"mcpServers": {"a": {"command": "node"}}}', ["--server", "b"], /--server b: not in .*ok\.json \(it has a\)/],
      ["id.json", '{"mcpServers": {"a b": {"command": "node"}}}', [], /server "a b": a server id is/],
    ];
    for (const [name, text, extra, expected] of cases) {
      await writeFile(join(dir, name), text);
      const result = await runInProcess(["schema", "export", "--config", join(dir, name), ...extra]);
      expect(result.code, name).toBe(2);
      expect(result.stderr.split("\n")[0]).toMatch(expected);
    }
  });

  it("--debug adds the stack trace", async () => {
    const result = await runInProcess(["schema", "export", "--config", "/no/such.json", "--debug"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\n\s+at /);
  });

  it("the built binary reports a usage error in its own process too", async () => {
    const result = await runCli(["schema", "export", "--bogus"]);
    expect(result.code).toBe(2);
    expect(result.stderr.split("\n")).toEqual(["pmcp: Unknown argument: --bogus", "pmcp: run 'pmcp --help' for usage", ""]);
  });
});

describe("one way to name the bundle and to ask for JSON", () => {
  const bundle = (tools: object[]) => `${JSON.stringify({ version: "1.0", servers: [{ id: "s", tools }] })}\n`;
  const tool = (name: string, input: object) => ({ name, inputSchema: input });

  /** A project folder whose pmcp.config.json names its bundle, with an older copy beside it. */
  async function project(): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-inputs-"));
    await writeFile(join(dir, "pmcp.config.json"), JSON.stringify({ bundle: "api/bundle.json" }));
    await import("node:fs/promises").then(({ mkdir }) => mkdir(join(dir, "api")));
    await writeFile(
      join(dir, "api/bundle.json"),
      bundle([tool("find", { type: "object", properties: { q: { type: "string" } }, required: ["q"], additionalProperties: true })]),
    );
    await writeFile(join(dir, "old.json"), bundle([tool("find", { type: "object", properties: {} }), tool("gone", { type: "object" })]));
    return dir;
  }

  it("every bundle-reading command falls back to pmcp.config's bundle (lint and normalize ignored it)", async () => {
    const dir = await project();
    // In this process: the claims are what each command reads and prints.
    const run = (...args: string[]) => runInProcess(args, { cwd: dir });
    const lint = await run("schema", "lint", "--profile", "gemini", "--json");
    expect(JSON.parse(lint.stdout).findings.map((finding: { rule: string; pointer: string }) => [finding.rule, finding.pointer])).toEqual([
      ["additional-properties", "/inputSchema"],
    ]);
    const normalized = await run("schema", "normalize", "--profile", "gemini");
    expect(normalized.code).toBe(0);
    expect(JSON.parse(normalized.stdout).servers[0].tools[0].inputSchema).toEqual({
      type: "object",
      properties: { q: { type: "string" } },
      required: ["q"],
    });
    const validated = await run("schema", "validate", "--json");
    expect(JSON.parse(validated.stdout).files).toEqual([{ path: join("api", "bundle.json"), format: "bundle" }]);
    const diff = await run("schema", "diff", "old.json", "--json");
    expect(JSON.parse(diff.stdout).changes.map((change: { rule: string }) => change.rule)).toEqual([
      "required-property-added",
      "tool-removed",
    ]);
    expect(diff.code).toBe(1);
  });

  it("a command told its bundle does not load pmcp.config, so a broken one does not stop it", async () => {
    const dir = await project();
    await writeFile(join(dir, "pmcp.config.json"), '{"bundle": 1');
    const run = (...args: string[]) => runInProcess(args, { cwd: dir });
    expect((await run("schema", "validate", "--schema", "api/bundle.json")).code).toBe(0);
    // report reads pmcp.config's output too (the generated index's history) unless told it with -o.
    expect((await run("report", "--schema", "api/bundle.json", "-o", "generated")).code).toBe(0);
    const fallback = await run("schema", "validate");
    expect(fallback.code).toBe(2);
    expect(fallback.stderr.split("\n")[0]).toMatch(/^pmcp: .*pmcp\.config\.json is not valid JSON: /);
  });

  it("the spellings removed before the first release are usage errors", async () => {
    const dir = await project();
    const run = (...args: string[]) => runInProcess(args, { cwd: dir });
    const help = "pmcp: run 'pmcp --help' for usage\n";
    const unknown = (word: string) => `pmcp: Unknown argument: ${word}\n${help}`;
    const choices = (given: string) => `pmcp: --format must be one of ${given}, got "json"\n${help}`;
    const cases: [string[], string][] = [
      [["schema", "validate", "api/bundle.json"], unknown("api/bundle.json")],
      [["schema", "lint", "api/bundle.json", "--profile", "openai"], unknown("api/bundle.json")],
      [["schema", "lint", "--profile", "openai", "--format", "json"], choices('"text", "github"')],
      [["schema", "normalize", "api/bundle.json", "--profile", "openai", "-o", "n.json"], unknown("api/bundle.json")],
      [["schema", "diff", "old.json", "api/bundle.json"], unknown("api/bundle.json")],
      [["schema", "diff", "old.json", "--format", "json"], choices('"text", "github", "junit"')],
      [["report", "--format", "json"], choices('"table", "markdown"')],
    ];
    for (const [args, stderr] of cases) {
      const result = await run(...args);
      expect(result.code, args.join(" ")).toBe(2);
      expect(result.stderr, args.join(" ")).toBe(stderr);
      expect(result.stdout, args.join(" ")).toBe("");
    }
  });
});
