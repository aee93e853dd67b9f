import { createRequire } from "node:module";
import type YargsFactory from "yargs";
import { devCommand } from "../commands/dev.js";
import { execCommand } from "../commands/exec.js";
import { generateCommand } from "../commands/generate.js";
import { inspectCommand } from "../commands/inspect.js";
import { reportCommand } from "../commands/report.js";
import { schemaDiffCommand } from "../commands/schema-diff.js";
import { schemaDiscoverCommand } from "../commands/schema-discover.js";
import { schemaExportCommand } from "../commands/schema-export.js";
import { schemaInferCommand } from "../commands/schema-infer.js";
import { schemaLintCommand } from "../commands/schema-lint.js";
import { schemaNormalizeCommand } from "../commands/schema-normalize.js";
import { schemaValidateCommand } from "../commands/schema-validate.js";
import { serveExecCommand } from "../commands/serve-exec.js";
import { serveInspectCommand } from "../commands/serve-inspect.js";
import { printable } from "../commands/shared/output.js";
import { toolsFromSourceCommand } from "../commands/tools-from-source.js";
import { PmcpError } from "../errors.js";
import { version } from "../version.js";
import { exitCodeOf, isUsageError } from "./exit-code.js";
import { yargsMessage } from "./yargs-messages.js";

// yargs' CommonJS build: its help wraps between words (wrap-ansi), where the ESM build's cliui cuts
// words at the column, and it loads faster than yargs 18, whose cliui loads string-width three times.
const yargs = createRequire(import.meta.url)("yargs") as typeof YargsFactory;

const GROUPS = {
  schema: "Export and check tool schema bundles",
  tools: "Tools from TypeScript functions",
  serve: "Run an MCP server for agents: inspect or exec",
};

/**
 * Runs the `pmcp` command line (`argv` without node and the script) and resolves with its
 * exit code; nothing here exits the process, so tests can run it in process. Failures become
 * one `pmcp:` line per problem on stderr, with the stack only under `--debug`.
 */
export async function run(argv: readonly string[]): Promise<number> {
  const cli = yargs([...argv])
    .scriptName("pmcp")
    .usage("$0 <command>\n\nTyped, validated server-to-server calls for MCP servers.")
    .option("debug", { type: "boolean", default: false, describe: "Print stack traces on failure" })
    .option("quiet", { type: "boolean", default: false, describe: "Print nothing but errors" })
    .option("json", { type: "boolean", default: false, describe: "Print a machine-readable summary on stdout" })
    // A group's command names no positional, which yargs would demand before the group's own
    // message naming the choices; its usage line names them instead.
    .command("schema", GROUPS.schema, (schema) =>
      schema
        .usage(`$0 schema <command>\n\n${GROUPS.schema}`)
        .command(schemaExportCommand)
        .command(schemaDiscoverCommand)
        .command(schemaInferCommand)
        .command(schemaValidateCommand)
        .command(schemaDiffCommand)
        .command(schemaNormalizeCommand)
        .command(schemaLintCommand)
        .demandCommand(1, "name a schema command: export, discover, infer, validate, diff, normalize or lint"),
    )
    .command("tools", GROUPS.tools, (tools) =>
      tools
        .usage(`$0 tools <command>\n\n${GROUPS.tools}`)
        .command(toolsFromSourceCommand)
        .demandCommand(1, "name a tools command: from-source"),
    )
    .command(inspectCommand)
    .command("serve", GROUPS.serve, (serve) =>
      serve
        .usage(`$0 serve <inspect|exec>\n\n${GROUPS.serve}`)
        .command(serveInspectCommand)
        .command(serveExecCommand)
        .demandCommand(1, "name a server: inspect or exec"),
    )
    .command(execCommand)
    .command(reportCommand)
    .command(generateCommand)
    .command(devCommand)
    .demandCommand(1, "name a command")
    .strict()
    // One language for every line pmcp prints, and the one yargs-messages.ts reads.
    .locale("en")
    .version(version)
    .alias("h", "help")
    .exitProcess(false)
    .fail((message, error, usage) => {
      if (error) throw error;
      // The third argument is yargs' usage object, whose help() is the failing command's help text (yargs' docs).
      const usageLine = (usage as unknown as { help(): string }).help().split("\n")[0] ?? "";
      throw new PmcpError("INVALID_ARGUMENT", yargsMessage(message, argv, usageLine));
    });
  try {
    await cli.parseAsync();
    return 0;
  } catch (error) {
    return reportError(error, argv.includes("--debug"));
  }
}

function reportError(error: unknown, debug: boolean): number {
  const message = error instanceof Error ? error.message : String(error);
  for (const line of message.split("\n")) process.stderr.write(`pmcp: ${printable(line)}\n`);
  if (isUsageError(error)) process.stderr.write("pmcp: run 'pmcp --help' for usage\n");
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return exitCodeOf(error);
}
