/**
 * Every command of `pmcp`, in the order `--help` lists them, and the flags all of them take: the one
 * list the yargs program is built from and the docs' flag tables are generated from.
 */
import { type Command, defineCommand } from "../commands/shared/command.js";

/** Commands under one word (`pmcp schema export`): the word's help line, and what to say when none is named. */
export interface CommandGroup {
  group: string;
  describe: string;
  /** The group's usage after `$0 <group> `. */
  usage: string;
  missing: string;
  commands: readonly Command[];
}

export type CommandEntry = Command | CommandGroup;

export const COMMANDS: readonly CommandEntry[] = [
  {
    group: "schema",
    describe: "Export and check tool schema bundles",
    usage: "<command>",
    missing: "name a schema command: export, discover, infer, validate, diff, normalize or lint",
    commands: [
      defineCommand("schema export", {
        command: "export",
        describe: "List every tool of live MCP servers into a schema bundle",
        examples: [
          ["$0 schema export --config .mcp.json", "Export every server of a config file"],
          ['$0 schema export --stdio "node server.js" --id inventory', "Export one stdio server"],
          ['$0 schema export --endpoint http://127.0.0.1:3000/mcp --header "Authorization: Bearer ${TOKEN}"', "Export an HTTP server"],
        ],
        load: async () => (await import("../commands/schema-export.js")).schemaExport,
      }),
      defineCommand("schema discover", {
        command: "discover",
        describe: "Call the read-only tools of live servers to log what they return, for schema infer",
        examples: [
          [
            "$0 schema discover --config .mcp.json --samples samples.json --observations observations/",
            "Call the safe tools with the sample arguments",
          ],
        ],
        load: async () => (await import("../commands/schema-discover.js")).schemaDiscover,
      }),
      defineCommand("schema infer", {
        command: "infer",
        describe: "Infer output schemas from observation logs into the bundle's inferred blocks",
        load: async () => (await import("../commands/schema-infer.js")).schemaInfer,
      }),
      defineCommand("schema validate", {
        command: "validate",
        describe: "Check bundle or PMCP schema files; broken tool schemas are reported as warnings",
        load: async () => (await import("../commands/schema-validate.js")).schemaValidate,
      }),
      defineCommand("schema diff", {
        command: "diff <old>",
        describe: "Compare a bundle with an older one; each change is breaking, dangerous or safe for callers",
        examples: [["$0 schema diff main.json --format github", "Annotate a pull request with what changed since main.json"]],
        load: async () => (await import("../commands/schema-diff.js")).schemaDiff,
      }),
      defineCommand("schema normalize", {
        command: "normalize",
        describe: "Rewrite a bundle's schemas so an LLM provider accepts them and reads them the same way",
        load: async () => (await import("../commands/schema-normalize.js")).schemaNormalize,
      }),
      defineCommand("schema lint", {
        command: "lint",
        describe: "Report what LLM providers would reject or misread in a bundle's schemas, and what each tool's model sees changed",
        load: async () => (await import("../commands/schema-lint.js")).schemaLint,
      }),
    ],
  },
  {
    group: "tools",
    describe: "Tools from TypeScript functions",
    usage: "<command>",
    missing: "name a tools command: from-source",
    commands: [
      defineCommand("tools from-source", {
        command: "from-source <file>",
        describe: "Write a tool manifest from a module's exported async functions and classes, and their JSDoc",
        examples: [["$0 tools from-source src/tools.ts -o tools.json", "Manifest for registerFunctions"]],
        load: async () => (await import("../commands/tools-from-source.js")).toolsFromSource,
      }),
    ],
  },
  defineCommand("inspect", {
    command: "inspect <tool>",
    describe: "Show a tool's description, input and output schemas and generated result type",
    examples: [["$0 inspect inventory/get_stock", "What get_stock takes and returns"]],
    load: async () => (await import("../commands/inspect.js")).inspect,
  }),
  {
    group: "serve",
    describe: "Run an MCP server for agents: inspect or exec",
    usage: "<inspect|exec>",
    missing: "name a server: inspect or exec",
    commands: [
      defineCommand("serve inspect", {
        command: "inspect",
        describe: "list_tools and inspect_tool over a bundle",
        load: async () => (await import("../commands/serve-inspect.js")).serveInspect,
      }),
      defineCommand("serve exec", {
        command: "exec",
        describe: "list_tools, inspect_tool and execute_program (type-checked TypeScript in a sandbox) over live servers",
        examples: [['$0 serve exec --stdio "node inventory.js" --id inventory', "Code mode over one stdio server, on stdio"]],
        load: async () => (await import("../commands/serve-exec.js")).serveExec,
      }),
    ],
  },
  defineCommand("exec", {
    command: "exec <file>",
    describe: "Type-check and run one program against live MCP servers, as execute_program does",
    examples: [['$0 exec report.ts --stdio "node inventory.js" --id inventory', "Run a program against one server"]],
    load: async () => (await import("../commands/exec.js")).exec,
  }),
  defineCommand("report", {
    command: "report",
    describe: "Schema-quality report: tools by source and quality, drift, recent improvements, recommendations, most used tools",
    load: async () => (await import("../commands/report.js")).report,
  }),
  defineCommand("generate", {
    command: "generate",
    describe: "Generate typed composition clients from a schema bundle",
    examples: [
      ["$0 generate", "Generate generated/ from schemas/mcp-bundle.json"],
      ["$0 generate --observations observations/", "Learn from the observed results, then generate: one build step"],
      ["$0 generate --schema schemas/ -o src/clients --check", "Fail CI when the clients are stale"],
      ["$0 generate --lang rust -o src/clients", "Generate Rust clients (serde types, a CompositionClient trait)"],
    ],
    load: async () => (await import("../commands/generate.js")).generate,
  }),
  defineCommand("dev", {
    command: "dev",
    describe: "Keep the bundle and the generated clients up to date while servers change (Ctrl-C to stop)",
    examples: [
      ["$0 dev", "Keep the bundle and generated/ up to date with the servers of pmcp.config"],
      ['$0 dev --stdio "node server.js" --id inventory', "Follow one stdio server while you edit it"],
      ["$0 dev --observations observations/", "Also type the results of tools that declare no output schema, as they are called"],
    ],
    load: async () => (await import("../commands/dev.js")).dev,
  }),
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
export function commandPaths(): { path: string; command: Command }[] {
  return COMMANDS.flatMap((entry) =>
    isGroup(entry)
      ? entry.commands.map((command) => ({ path: `${entry.group} ${commandName(command)}`, command }))
      : [{ path: commandName(entry), command: entry }],
  );
}

/** A command's name, its usage's first word (`diff <old> [new]` → `diff`). */
function commandName(command: Command): string {
  return command.command.split(" ")[0] ?? command.command;
}
