/**
 * Every command of `pmcp`, in the order `--help` lists them, and the flags all of them take: the one
 * list the yargs program is built from and the docs' flag tables are generated from.
 */
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
import type { Command } from "../commands/shared/command.js";
import { toolsFromSourceCommand } from "../commands/tools-from-source.js";

// Each command's own argument type is its business; the list only runs their builders and handlers.
// biome-ignore lint/suspicious/noExplicitAny: a list of commands of different argument types
type AnyCommand = Command<any>;

/** Commands under one word (`pmcp schema export`): the word's help line, and what to say when none is named. */
export interface CommandGroup {
  group: string;
  describe: string;
  /** The group's usage after `$0 <group> `. */
  usage: string;
  missing: string;
  commands: readonly AnyCommand[];
}

export type CommandEntry = AnyCommand | CommandGroup;

export const COMMANDS: readonly CommandEntry[] = [
  {
    group: "schema",
    describe: "Export and check tool schema bundles",
    usage: "<command>",
    missing: "name a schema command: export, discover, infer, validate, diff, normalize or lint",
    commands: [
      schemaExportCommand,
      schemaDiscoverCommand,
      schemaInferCommand,
      schemaValidateCommand,
      schemaDiffCommand,
      schemaNormalizeCommand,
      schemaLintCommand,
    ],
  },
  {
    group: "tools",
    describe: "Tools from TypeScript functions",
    usage: "<command>",
    missing: "name a tools command: from-source",
    commands: [toolsFromSourceCommand],
  },
  inspectCommand,
  {
    group: "serve",
    describe: "Run an MCP server for agents: inspect or exec",
    usage: "<inspect|exec>",
    missing: "name a server: inspect or exec",
    commands: [serveInspectCommand, serveExecCommand],
  },
  execCommand,
  reportCommand,
  generateCommand,
  devCommand,
];

/** The flags every command takes (`GlobalArgs`). */
export const GLOBAL_OPTIONS = {
  debug: { type: "boolean", default: false, describe: "Print stack traces on failure" },
  quiet: { type: "boolean", default: false, describe: "Print nothing but errors" },
  json: { type: "boolean", default: false, describe: "Print a machine-readable summary on stdout" },
} as const;

export function isGroup(entry: CommandEntry): entry is CommandGroup {
  return "group" in entry;
}

/** Every command with the words that name it after `pmcp` (`schema export`), in the list's order. */
export function commandPaths(): { path: string; command: AnyCommand }[] {
  return COMMANDS.flatMap((entry) =>
    isGroup(entry)
      ? entry.commands.map((command) => ({ path: `${entry.group} ${commandName(command)}`, command }))
      : [{ path: commandName(entry), command: entry }],
  );
}

/** A command's name, its usage's first word (`diff <old> [new]` → `diff`). */
function commandName(command: AnyCommand): string {
  return command.command.split(" ")[0] ?? command.command;
}
