import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";

describe("pmcp command line", () => {
  it("--help lists commands and every export flag", async () => {
    const top = await runCli(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/pmcp schema <command>/);
    const help = await runCli(["schema", "export", "--help"]);
    expect(help.code).toBe(0);
    for (const flag of ["--endpoint", "--stdio", "--config", "--server", "--id", "--header", "--timeout", "--concurrency", "--output", "--format", "--check", "--allow-partial", "--json", "--quiet", "--debug"]) {
      expect(help.stdout).toContain(flag);
    }
  });

  it.each([
    [["schema", "discover"], ["--samples", "--observations", "--allow-tool", "--max-samples", "--redact", "--stdio", "--config", "--header"]],
    [["schema", "infer"], ["--schema", "--observations", "--output"]],
    [["report"], ["--schema", "--format"]],
    [["generate"], ["--min-quality"]],
    [["inspect"], ["--schema", "--json"]],
    [["serve", "inspect"], ["--schema", "--http"]],
    [["tools", "from-source"], ["--output"]],
  ])("%j --help describes every flag", async (command, flags) => {
    const help = await runCli([...command, "--help"]);
    expect(help.code).toBe(0);
    for (const flag of flags) expect(help.stdout).toContain(flag);
  });

  it("--version prints the package version", async () => {
    const result = await runCli(["--version"]);
    expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it.each([
    [["schema", "export", "--bogus"], /Unknown arguments?: bogus/],
    [["frobnicate"], /Unknown argument: frobnicate/],
    [["schema", "export"], /nothing to export/],
    [["schema", "export", "--config", "/no/such/mcp.json"], /cannot read config file \/no\/such\/mcp\.json: ENOENT/],
    [["schema", "export", "--stdio", "a", "--stdio", "b", "--id", "x"], /--id names the server of a single/],
    [["schema", "export", "--stdio", "a", "--id", "../up"], /--id "\.\.\/up": a server id is/],
    [["schema", "export", "--stdio", "node a.js | tee log"], /shell operators/],
    [["schema", "export", "--endpoint", "ftp://example.com"], /only http and https URLs/],
    [["schema", "export", "--endpoint", "http://127.0.0.1:1/mcp", "--timeout", "0"], /--timeout must be a positive/],
    [["schema", "export", "--endpoint", "http://127.0.0.1:1/mcp", "--header", "no colon"], /expected "Name: value"/],
    [["schema", "export", "--server", "x"], /--server picks entries of a --config file/],
    [["schema", "validate"], /Not enough non-option arguments/],
    [["schema", "infer", "--observations", "o", "--bogus"], /Unknown arguments?: bogus/],
    [["report", "--format", "html"], /Invalid values:/],
    [["generate", "--min-quality", "great"], /Invalid values:/],
    [["serve", "frobnicate"], /Invalid values:/],
    [["serve", "inspect", "--http", "99999"], /--http must be a port number/],
    [["tools", "from-source"], /Not enough non-option arguments/],
    [["schema", "discover", "--stdio", "node x.js", "--observations", "o", "--max-samples", "0"], /--max-samples must be a positive whole number/],
  ])("usage error %j exits 2 with one clear line", async (args, expected) => {
    const result = await runCli(args);
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
      const result = await runCli(["schema", "export", "--config", join(dir, name), ...extra]);
      expect(result.code, name).toBe(2);
      expect(result.stderr.split("\n")[0]).toMatch(expected);
    }
  });

  it("--debug adds the stack trace", async () => {
    const result = await runCli(["schema", "export", "--config", "/no/such.json", "--debug"]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/\n\s+at /);
  });
});
