import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompositionClient, ToolCallError } from "@pmcp-codegen/runtime";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { FIXTURES } from "../helpers/cli.js";

describe("a 2026-07-28 server that answers a call with input_required", () => {
  it("has the call run once, reported as a tool error, retryable or not, and the connection stays", async () => {
    const log = join(await mkdtemp(join(tmpdir(), "pmcp-input-required-")), "calls");
    const client = new CompositionClient({
      servers: { asking: { command: process.execPath, args: [join(FIXTURES, "input-required-server.mjs")], env: { CALL_LOG: log } } },
    });
    try {
      const Pid = z.object({ pid: z.number() });
      const before = await client.callTool({ server: "asking", tool: "pid", parse: Pid });
      for (const retryable of [false, true]) {
        const error = await client.callTool({ server: "asking", tool: "ask", parse: z.unknown(), retryable }).then(
          () => undefined,
          (reason: unknown) => reason,
        );
        expect(error).toBeInstanceOf(ToolCallError);
        expect((error as ToolCallError).message).toBe(
          "asking/ask: the server asked for input (input_required), which pmcp does not provide",
        );
      }
      expect((await readFile(log, "utf8")).split("\n").filter(Boolean)).toEqual(["ask", "ask"]);
      expect(await client.callTool({ server: "asking", tool: "pid", parse: Pid })).toEqual(before);
    } finally {
      await client.close();
    }
  });
});
