import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Schema } from "../../src/normalize/passes.js";
import { runCli } from "../helpers/cli.js";
import { mutuallyRecursive } from "../helpers/recursive-schemas.js";

describe("pmcp schema normalize on a bundle with a troublesome server", () => {
  it("summarizes notes in one line per tool, leaves a tool it cannot normalize as exported, and writes the rest", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-normalize-real-"));
    let deep: Schema = { type: "string" };
    for (let level = 0; level < 2_000; level++) deep = { type: "object", properties: { a: deep } };
    const bundle = {
      version: "1.0",
      servers: [
        {
          id: "graph",
          tools: [
            { name: "create-page", inputSchema: mutuallyRecursive() },
            { name: "deep", inputSchema: deep },
            { name: "plain", inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } },
          ],
        },
      ],
    };
    await writeFile(join(dir, "b.json"), JSON.stringify(bundle));
    const result = await runCli(["schema", "normalize", "--profile", "gemini", "--schema", join(dir, "b.json"), "-o", join(dir, "n.json")]);
    expect(result.code, result.stderr).toBe(1);
    const lines = result.stderr.trimEnd().split("\n");
    expect(lines.map((line) => line.match(/^[^:]*(: server "[^"]*" tool "[^"]*")?/)?.[0])).toEqual([
      'warning: server "graph" tool "create-page"',
      'warning: server "graph" tool "deep"',
      "pmcp",
    ]);
    // A cut reference is unconstrained, which Gemini has no form for: JSON text.
    expect(lines[0]).toMatch(
      /: \d+ notes \(size-cut \d+(, (recursion-cut|json-text) \d+)*\); first at \/inputSchema\/properties\/body\/\S+: \$ref/,
    );
    expect(lines[1]).toMatch(/: not normalized, left as exported: \/inputSchema(\/properties\/a){257}: nested deeper than 256 levels$/);
    expect(lines[2]).toBe("pmcp: 1 tool could not be normalized for gemini");
    const written = JSON.parse(await readFile(join(dir, "n.json"), "utf8"));
    const tools = written.servers[0].tools;
    expect(tools.map((tool: { name: string }) => tool.name)).toEqual(["create-page", "deep", "plain"]);
    expect(JSON.stringify(tools[0].inputSchema)).not.toMatch(/"\$ref"/);
    // Compared as text: a deep equality check would overflow the stack too.
    expect(JSON.stringify(tools[1].inputSchema)).toBe(JSON.stringify(deep));
  });
});
