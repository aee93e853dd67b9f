// Its own subpath: the CLI loads this module for every command, and `internal` would load zod.
import { timeoutProblem } from "@pmcp-codegen/runtime/internal/timeout";
import type { Argv } from "yargs";
import { PmcpError } from "../errors.js";

/** The flags that name live servers, for every command that talks to them (export, discover). */
export function sourceOptions<T>(yargs: Argv<T>) {
  return yargs
    .option("endpoint", {
      type: "string",
      array: true,
      default: [] as string[],
      describe: "Streamable HTTP URL (falls back to HTTP+SSE); repeatable",
    })
    .option("stdio", {
      type: "string",
      array: true,
      default: [] as string[],
      describe: "Command line of a server to spawn over stdio; repeatable",
    })
    .option("config", { type: "string", describe: "mcpServers config file (Claude, Cursor, .mcp.json, VS Code)" })
    .option("server", { type: "string", array: true, default: [] as string[], describe: "Only these ids of the --config file; repeatable" })
    .option("id", { type: "string", describe: "Server id for a single --endpoint or --stdio (default: slug of serverInfo.name)" })
    .option("header", {
      type: "string",
      array: true,
      default: [] as string[],
      describe: 'HTTP header "Name: value" (${VAR} allowed, never recorded); repeatable',
    })
    .option("max-message-bytes", {
      type: "number",
      describe: "Largest message a stdio server may write (default 10485760, 10 MiB)",
    })
    .option("protocol", {
      type: "string",
      describe:
        "Protocol era: auto (default: 2026-07-28 if the server speaks it, else the 2025 handshake), legacy (2025 only: servers that hang on the probe), or a version to require",
    });
}

/** `--timeout`: a positive number of milliseconds that a timer can wait. */
export function checkTimeout(timeout: number): true {
  const problem = timeoutProblem(timeout);
  if (problem !== undefined) throw new PmcpError("INVALID_ARGUMENT", `--timeout ${problem}`);
  return true;
}
