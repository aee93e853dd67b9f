import { mkdtemp, readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { Bundle, InferredTool } from "../../src/bundle/types.js";
import { writeInferred } from "../../src/learn/write-inferred.js";

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-write-inferred-"));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function block(tool: string, seen: number, quality: InferredTool["quality"] = "low"): InferredTool {
  return {
    tool,
    schema: { type: "object" },
    observations: seen,
    seen,
    firstSeen: "a",
    lastSeen: "b",
    redacted: false,
    consistency: 1,
    quality,
    fields: [],
  };
}

/** What a session learned: blocks of server `s`, whose tools are `a` and `b`. */
function learned(...blocks: InferredTool[]): Bundle {
  return { version: "1.0", servers: [{ id: "s", tools: [], inferred: blocks }] };
}

const TOOLS = [
  { name: "a", inputSchema: { type: "object" } },
  { name: "b", inputSchema: { type: "object" } },
];

async function bundleFile(text: string): Promise<string> {
  const path = join(dir, "bundle.json");
  await writeFile(path, text);
  return path;
}

describe("writeInferred", () => {
  it("adds the learned blocks to the file as it is now, each in its place, both of two writers at once", async () => {
    const path = await bundleFile(`${JSON.stringify({ version: "1.0", servers: [{ id: "s", tools: TOOLS }] }, null, 2)}\n`);
    expect(
      await Promise.all([writeInferred(path, learned(block("b", 2)), "--schema"), writeInferred(path, learned(block("a", 1)), "--schema")]),
    ).toEqual([true, true]);
    const written = JSON.parse(await readFile(path, "utf8")) as Bundle;
    expect(written.servers[0]?.inferred).toEqual([block("a", 1), block("b", 2)]);
    expect(await readdir(dir)).toEqual(["bundle.json"]);
  });

  it("leaves the file alone, whatever its layout, when no block changes: the same block, one seen fewer times, one seen more times to the same effect, or one of a tool or server it does not list", async () => {
    // Four-space indentation and keys in its own order, as a person may keep it.
    const text = JSON.stringify({ servers: [{ tools: TOOLS, id: "s", inferred: [block("a", 5)] }], version: "1.0" }, null, 4);
    const path = await bundleFile(text);
    const before = await stat(path);
    const unknown: Bundle = { version: "1.0", servers: [{ id: "t", tools: [], inferred: [block("a", 9)] }] };
    for (const from of [learned(block("a", 5)), learned(block("a", 4)), learned(block("a", 8)), learned(block("c", 9)), unknown]) {
      expect(await writeInferred(path, from, "--schema")).toBe(false);
    }
    const after = await stat(path);
    expect([await readFile(path, "utf8"), after.ino, after.mtimeMs]).toEqual([text, before.ino, before.mtimeMs]);
  });

  it("keeps every key of the file but the changed server's inferred list, snake_case spellings included", async () => {
    const server = { id: "s", server_info: { name: "s", version: "1" }, tools: TOOLS, inferred: [block("a", 1)], "x-vendor": 1 };
    const path = await bundleFile(JSON.stringify({ version: "1.0", servers: [server] }));
    expect(await writeInferred(path, learned(block("a", 12, "medium")), "--schema")).toBe(true);
    expect(await readFile(path, "utf8")).toBe(
      `${JSON.stringify({ version: "1.0", servers: [{ ...server, inferred: [block("a", 12, "medium")] }] }, null, 2)}\n`,
    );
  });

  it("refuses a PMCP foundation file, which has no place for the blocks, and a file that is gone", async () => {
    const path = await bundleFile(JSON.stringify({ server_id: "s", tools: [] }));
    await expect(writeInferred(path, learned(block("a", 1)), "--schema")).rejects.toThrow(`${path}: no longer a bundle file`);
    const gone = join(dir, "gone.json");
    await expect(writeInferred(gone, learned(block("a", 1)), "--schema")).rejects.toThrow(`${gone}: no such file or directory`);
  });
});
