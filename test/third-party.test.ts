import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli, serverCommand } from "./helpers/cli.js";

describe("third-party servers", () => {
  it("exports server-everything, -filesystem and -memory in one command", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-third-party-"));
    const out = join(dir, "bundle.json");
    const result = await runCli(
      [
        "schema",
        "export",
        "--stdio",
        serverCommand("server-everything"),
        "--stdio",
        serverCommand("server-filesystem", dir),
        "--stdio",
        serverCommand("server-memory"),
        "-o",
        out,
        "--json",
      ],
      { env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
    );
    expect(result.code, result.stderr).toBe(0);
    const bundle = JSON.parse(await readFile(out, "utf8"));
    const counts = Object.fromEntries(
      bundle.servers.map((server: { id: string; tools: { outputSchema?: unknown }[] }) => [
        server.id,
        { tools: server.tools.length, withOutputSchema: server.tools.filter((tool) => tool.outputSchema).length },
      ]),
    );
    // The counts of the installed versions (package-lock.json pins them).
    expect(counts).toEqual({
      "mcp-servers-everything": { tools: 13, withOutputSchema: 1 },
      "secure-filesystem-server": { tools: 14, withOutputSchema: 14 },
      "memory-server": { tools: 9, withOutputSchema: 9 },
    });
    const memory = bundle.servers.find((server: { id: string }) => server.id === "memory-server");
    const readGraph = memory.tools.find((tool: { name: string }) => tool.name === "read_graph");
    expect(readGraph.outputSchema).toMatchObject({ type: "object", properties: { entities: { type: "array" } } });
    expect(readGraph.annotations).toMatchObject({ readOnlyHint: true });
    const files = bundle.servers.find((server: { id: string }) => server.id === "secure-filesystem-server");
    expect(files.tools.map((tool: { name: string }) => tool.name)).toContain("read_text_file");
    expect(JSON.parse(result.stdout).servers).toHaveLength(3);
  });
});
