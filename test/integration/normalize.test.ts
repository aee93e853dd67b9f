import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureCommand, runCli } from "../helpers/cli.js";

describe("pmcp schema normalize", () => {
  it("normalizes a real export and reports what changed meaning, per server, tool and pointer", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-normalize-"));
    const exported = await runCli([
      "schema",
      "export",
      "--stdio",
      fixtureCommand("listing-server.mjs"),
      "--id",
      "listing",
      "-o",
      join(dir, "b.json"),
      "--quiet",
    ]);
    expect(exported.code).toBe(0);
    const result = await runCli([
      "schema",
      "normalize",
      "--profile",
      "openai-strict",
      "--schema",
      join(dir, "b.json"),
      "-o",
      join(dir, "n.json"),
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(
      /^warning: server "listing" tool "class": \d+ notes \(optional-to-nullable \d+(, [a-z-]+ \d+)*\); first at \/inputSchema\/properties\/filters\/items: optional properties value became required and nullable/m,
    );
    const bundle = JSON.parse(await readFile(join(dir, "n.json"), "utf8"));
    expect(JSON.stringify(bundle)).not.toContain('"$defs"');
    const wrong = await runCli(["schema", "normalize", "--profile", "bogus", "--schema", join(dir, "b.json")]);
    expect(wrong.code).toBe(2);
    // Normalized again, it would lose the first run's notes: refused in one line, and nothing written.
    const again = await runCli([
      "schema",
      "normalize",
      "--profile",
      "openai-strict",
      "--schema",
      join(dir, "n.json"),
      "-o",
      join(dir, "n2.json"),
    ]);
    expect([again.code, again.stdout, again.stderr]).toEqual([
      1,
      "",
      `pmcp: ${join(dir, "n.json")}: server "listing" tool "class" was normalized already (it has _meta["pmcp/normalized"]): normalize the bundle as exported\n`,
    ]);
    await expect(readFile(join(dir, "n2.json"))).rejects.toThrow("ENOENT");
    // What the model sees changed is kept beside each tool, and --json prints the summary on stdout.
    const meta = bundle.servers[0].tools.map((tool: { name: string; _meta?: Record<string, { name: string; strict: boolean }> }) => [
      tool.name,
      tool._meta?.["pmcp/normalized"]?.name,
      tool._meta?.["pmcp/normalized"]?.strict,
    ]);
    expect(meta).toEqual(bundle.servers[0].tools.map((tool: { name: string }) => [tool.name, tool.name, true]));
    const summary = await runCli(["schema", "normalize", "--profile", "gemini", "--schema", join(dir, "b.json"), "--json", "--quiet"]);
    expect(summary.code, summary.stderr).toBe(0);
    const parsed = JSON.parse(summary.stdout);
    expect([parsed.profile, parsed.output, parsed.tools, parsed.failed]).toEqual(["gemini", null, bundle.servers[0].tools.length, 0]);
    expect(parsed.results.map((result: { tool: string; name: string }) => result.name)).toEqual(
      bundle.servers[0].tools.map((tool: { name: string }) => tool.name),
    );
  });

  it("a bundle normalized for anthropic-strict passes lint for it, the tools past the budget held to the rules they were normalized for", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-normalize-"));
    const tools = Array.from({ length: 25 }, (_, index) => ({
      name: `t${index}`,
      inputSchema: { type: "object", properties: { n: { type: "integer", minimum: 1 } }, additionalProperties: { type: "string" } },
    }));
    await writeFile(join(dir, "b.json"), JSON.stringify({ version: "1.0", servers: [{ id: "s", tools }] }));
    const normalized = await runCli([
      "schema",
      "normalize",
      "--profile",
      "anthropic-strict",
      "--schema",
      join(dir, "b.json"),
      "-o",
      join(dir, "n.json"),
      "--quiet",
    ]);
    expect(normalized.code, normalized.stderr).toBe(0);
    const written = JSON.parse(await readFile(join(dir, "n.json"), "utf8"));
    const strict = written.servers[0].tools.map(
      (tool: { _meta: Record<string, { strict: boolean }> }) => tool._meta["pmcp/normalized"]?.strict,
    );
    expect(strict).toEqual([...Array(20).fill(true), ...Array(5).fill(false)]);
    const lint = await runCli(["schema", "lint", "--profile", "anthropic-strict", "--schema", join(dir, "n.json"), "--json"]);
    expect(lint.code, lint.stdout).toBe(0);
    expect(JSON.parse(lint.stdout).errors).toBe(0);
  });
});
