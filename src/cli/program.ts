import { createRequire } from "node:module";
import type YargsFactory from "yargs";
import type { Argv } from "yargs";
import { printable } from "../commands/shared/output.js";
import { PmcpError } from "../errors.js";
import { version } from "../version.js";
import { COMMANDS, type CommandEntry, GLOBAL_OPTIONS, isGroup } from "./commands.js";
import { exitCodeOf, isUsageError } from "./exit-code.js";
import { yargsMessage } from "./yargs-messages.js";

// yargs' CommonJS build: its help wraps between words (wrap-ansi), where the ESM build's cliui cuts
// words at the column, and it loads faster than yargs 18, whose cliui loads string-width three times.
const yargs = createRequire(import.meta.url)("yargs") as typeof YargsFactory;

/**
 * Runs the `pmcp` command line (`argv` without node and the script) and resolves with its
 * exit code; nothing here exits the process, so tests can run it in process. Failures become
 * one `pmcp:` line per problem on stderr, with the stack only under `--debug`.
 */
export async function run(argv: readonly string[]): Promise<number> {
  try {
    await program(argv, COMMANDS).parseAsync();
    return 0;
  } catch (error) {
    return reportError(error, argv.includes("--debug"));
  }
}

/**
 * The `pmcp` command line for `argv`, built from `commands` (`COMMANDS`; a test gives them handlers
 * that do nothing, to parse every command line of the docs as pmcp would). Parsing it throws a
 * `PmcpError` for what yargs refuses.
 */
export function program(argv: readonly string[], commands: readonly CommandEntry[]): Argv {
  let cli = yargs([...argv])
    .scriptName("pmcp")
    .usage("$0 <command>\n\nTyped, validated server-to-server calls for MCP servers.")
    .options(GLOBAL_OPTIONS);
  for (const entry of commands) {
    // A group's command names no positional, which yargs would demand before the group's own
    // message naming the choices; its usage line names them instead.
    cli = isGroup(entry)
      ? cli.command(entry.group, entry.describe, (group) =>
          entry.commands
            .reduce((built, command) => built.command(command), group.usage(`$0 ${entry.group} ${entry.usage}\n\n${entry.describe}`))
            .demandCommand(1, entry.missing),
        )
      : cli.command(entry);
  }
  return (
    cli
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
      })
  );
}

function reportError(error: unknown, debug: boolean): number {
  const message = error instanceof Error ? error.message : String(error);
  for (const line of message.split("\n")) process.stderr.write(`pmcp: ${printable(line)}\n`);
  if (isUsageError(error)) process.stderr.write("pmcp: run 'pmcp --help' for usage\n");
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return exitCodeOf(error);
}
