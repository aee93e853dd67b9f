import { McpServer } from "@modelcontextprotocol/server";
import { z } from "zod";
import { declareFixedToolList, registerInspectTools } from "../inspect/inspect-server.js";
import type { Profile } from "../providers/facts.js";
import { tracedToolCall } from "../server/traced-call.js";
import { version } from "../version.js";
import type { ExecSession } from "./exec-session.js";
import { programAnswer } from "./program-answer.js";

const ProgramOutput = z.object({
  result: z
    .unknown()
    // Any JSON value, said so: a node with no keyword at all reads as a forgotten schema to strict validators.
    .meta({ type: ["object", "array", "string", "number", "boolean", "null"] })
    .describe("The value the program returned, as JSON (null when it failed)"),
  logs: z.array(z.string()).describe("The program's console lines, in order"),
  calls: z
    .array(
      z.object({
        server: z.string(),
        tool: z.string(),
        durationMs: z.number(),
        ok: z.boolean(),
        code: z.string().optional().describe("The error's code when the call failed"),
      }),
    )
    .describe("Every tool call the program made, also when it failed: never repeat a write blindly"),
  durationMs: z.number(),
});

/**
 * Code mode: list_tools and inspect_tool as `serve inspect` has them (inspect also shows how a
 * program calls the tool), and execute_program, which type-checks a program against the
 * clients and runs it in the sandbox. One session is shared by every server made from it.
 * Nothing here waits for the session's start: the tools list needs only the limits and
 * `serverIds` (undefined when some are not known before listing), the tools wait when called.
 */
export function createExecServer(session: ExecSession, profile?: Profile, serverIds?: readonly string[]): McpServer {
  const server = new McpServer(
    { name: "pmcp-exec", version },
    {
      instructions:
        "Find tools with list_tools, read one with inspect_tool (its program signature and types), then call execute_program " +
        "with TypeScript that calls the tools as typed methods of one global per server and returns the result you need.",
    },
  );
  registerInspectTools(server, () => session.bundle(), {
    serverIds,
    programOf: (name) => {
      const declaration = session.declarationOf(name);
      return declaration === undefined ? undefined : { signature: declaration.signature, types: declaration.types };
    },
    profile,
  });
  server.registerTool(
    "execute_program",
    {
      title: "Execute a program",
      description:
        "Runs TypeScript: the body of an async function (top-level await and return work), type-checked in strict mode before it runs. " +
        "Each server is a global whose methods call its tools, as inspect_tool's signature shows; console.log lines are returned. " +
        "No imports, no I/O besides the tool calls. Returns { result, logs, calls, durationMs }; on failure the text starts with a tag " +
        "([Type error], [Timeout], [Memory limit], [Call limit], [Output limit], [Uncaught error], [Invalid input], [Start-up failed]) and calls lists what already ran.",
      // The schema the agent reads says what to send, but lets anything through: the session checks
      // the values itself, so that wrong ones get execute_program's own [Invalid input] answer with
      // its structured fields, not the SDK's bare validation error.
      inputSchema: z
        .object({
          code: z
            .unknown()
            .optional()
            .meta({ type: "string", description: "The program: TypeScript statements ending in `return <value>`" }),
          timeout_ms: z
            .unknown()
            .optional()
            .meta({
              type: "integer",
              minimum: 1,
              description: `Wall time allowed in milliseconds (at most ${session.limits.timeoutMs}, the default)`,
            }),
        })
        .meta({ required: ["code"] }),
      outputSchema: ProgramOutput,
      annotations: { openWorldHint: true },
    },
    ({ code, timeout_ms }, ctx) =>
      tracedToolCall(server.server, "execute_program", ctx, async () => {
        // Over HTTP with a verifier, each client its own share of the type-checkers.
        const caller = ctx.http?.authInfo?.clientId;
        return programAnswer(await session.execute(code, timeout_ms, caller), session.limits.maxOutputBytes);
      }),
  );
  declareFixedToolList(server);
  return server;
}
