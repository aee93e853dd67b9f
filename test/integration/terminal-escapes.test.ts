import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";

/** Colours the terminal red, retitles its window, and returns to the line start to overwrite it. */
const HOSTILE = "\u001b[31m\u001b]0;title\u0007\r";
const ESCAPED = "\\u001b[31m\\u001b]0;title\\u0007\\u000d";
// biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that none of these reaches the terminal
const RAW = /[\u001b\u0007\r]/;

function bundle(removedEnumValue: boolean): string {
  const tool = {
    name: `get${HOSTILE}stock`,
    description: `Stock${HOSTILE}level`,
    inputSchema: {
      type: "object",
      properties: {
        [`sku${HOSTILE}`]: { type: ["string", "null"] },
        [`kind${HOSTILE}`]: { enum: [`a${HOSTILE}`, 1, ...(removedEnumValue ? [] : [`b${HOSTILE}`])] },
      },
    },
    outputSchema: { type: "object", properties: { [`level${HOSTILE}`]: { $ref: `#/$defs/missing${HOSTILE}` } } },
  };
  return JSON.stringify({ version: "1.0", servers: [{ id: "shop", tools: [tool] }] });
}

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-escapes-"));
  await writeFile(join(dir, "old.json"), bundle(false));
  await writeFile(join(dir, "new.json"), bundle(true));
});

describe("a server's control characters never reach the terminal raw", () => {
  it("GitHub annotations: escaped, with CR in GitHub's own %0D", async () => {
    const result = await runCli(["schema", "diff", "old.json", "--schema", "new.json", "--format", "github"], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stdout).not.toMatch(RAW);
    expect(result.stdout).toContain("get\\u001b[31m\\u001b]0;title\\u0007%0Dstock");
  }, 120_000);

  it.each([
    ["schema diff", ["schema", "diff", "old.json", "--schema", "new.json"], 1, "stdout"],
    ["schema lint", ["schema", "lint", "--schema", "new.json", "--profile", "gemini"], 1, "stdout"],
    ["generate (warnings)", ["generate", "--schema", "new.json", "--output", "generated"], 0, "stderr"],
    ["schema validate (warnings)", ["schema", "validate", "--schema", "new.json"], 0, "stderr"],
    [
      "schema normalize (warnings)",
      ["schema", "normalize", "--schema", "new.json", "--profile", "gemini", "--output", "n.json"],
      0,
      "stderr",
    ],
    ["inspect", ["inspect", `shop/get${HOSTILE}stock`, "--schema", "new.json"], 0, "stdout"],
    ["the error line", ["inspect", `shop/${HOSTILE}`, "--schema", "new.json"], 1, "stderr"],
  ] as const)(
    "%s",
    async (_, args, code, stream) => {
      const result = await runCli(args, { cwd: dir });
      expect(result.code).toBe(code);
      expect(result.stdout).not.toMatch(RAW);
      expect(result.stderr).not.toMatch(RAW);
      expect(result[stream]).toContain(ESCAPED);
    },
    120_000,
  );

  it("--json output and written files keep the server's text as it is", async () => {
    const diff = await runCli(["schema", "diff", "old.json", "--schema", "new.json", "--json"], { cwd: dir });
    const changes = (JSON.parse(diff.stdout) as { changes: { tool: string }[] }).changes;
    expect(changes.map((change) => change.tool)).toEqual([`get${HOSTILE}stock`]);
    const normalize = await runCli(["schema", "normalize", "--schema", "new.json", "--profile", "gemini", "--output", "kept.json"], {
      cwd: dir,
    });
    expect(normalize.code).toBe(0);
    const written = JSON.parse(await readFile(join(dir, "kept.json"), "utf8")) as { servers: { tools: { name: string }[] }[] };
    expect(written.servers[0]?.tools.map((tool) => tool.name)).toEqual([`get${HOSTILE}stock`]);
  }, 120_000);
});
