#!/usr/bin/env node
import { readFileSync } from "node:fs";
import yargs, { type Argv } from "yargs";
import { hideBin } from "yargs/helpers";
import { UsageError } from "./errors.js";

// Command modules (the SDK, zod, listr2) load inside handlers, so --help stays fast.
// The provider profiles, repeated here (a test keeps them equal to PROFILES) so --help loads no normalizer.
const PROFILE_NAMES = ["openai", "openai-strict", "gemini", "gemini-json", "anthropic", "anthropic-strict", "portable"] as const;
const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };

/** The flags that name live servers, for export and discover. */
function sourceOptions<T>(command: Argv<T>) {
  return command
    .option("endpoint", { type: "string", array: true, default: [] as string[], describe: "Streamable HTTP URL (falls back to HTTP+SSE); repeatable" })
    .option("stdio", { type: "string", array: true, default: [] as string[], describe: "Command line of a server to spawn over stdio; repeatable" })
    .option("config", { type: "string", describe: "mcpServers config file (Claude, Cursor, .mcp.json, VS Code)" })
    .option("server", { type: "string", array: true, default: [] as string[], describe: "Only these ids of the --config file; repeatable" })
    .option("id", { type: "string", describe: "Server id for a single --endpoint or --stdio (default: slug of serverInfo.name)" })
    .option("header", { type: "string", array: true, default: [] as string[], describe: 'HTTP header "Name: value" (${VAR} allowed, never recorded); repeatable' });
}

/** The source flags as export and discover take them. */
function sourceFlags(argv: { endpoint: string[]; stdio: string[]; config: string | undefined; server: string[]; id: string | undefined; header: string[] }) {
  return { endpoint: argv.endpoint, stdio: argv.stdio, config: argv.config, server: argv.server, id: argv.id, header: argv.header };
}

const cli = yargs(hideBin(process.argv))
  .scriptName("pmcp")
  .usage("$0 <command>\n\nTyped, validated server-to-server calls for MCP servers.")
  .option("debug", { type: "boolean", default: false, describe: "Print stack traces on failure" })
  .option("quiet", { type: "boolean", default: false, describe: "Print nothing but errors" })
  .option("json", { type: "boolean", default: false, describe: "Print a machine-readable summary on stdout" })
  .command("schema <command>", "Export and check tool schema bundles", (schema) =>
    schema
      .command(
        "export",
        "List every tool of live MCP servers into a schema bundle",
        (command) =>
          sourceOptions(command)
            .option("timeout", { type: "number", default: 30_000, describe: "Milliseconds allowed per server" })
            .option("concurrency", { type: "number", describe: "Servers contacted at once (default: all)" })
            .option("output", { alias: "o", type: "string", describe: "Bundle file, or folder for pmcp-foundation (default: schemas/mcp-bundle.json, schemas/)" })
            .option("format", { choices: ["bundle", "pmcp-foundation"] as const, default: "bundle" as const, describe: "One bundle file, or PMCP's per-server files" })
            .option("check", { type: "boolean", default: false, describe: "Compare with the files on disk instead of writing; exit 1 when they differ" })
            .option("allow-partial", { type: "boolean", default: false, describe: "Write the servers that succeeded even if others failed" })
            .check((argv) => {
              if (!(argv.timeout > 0)) throw new UsageError("--timeout must be a positive number of milliseconds");
              if (argv.concurrency !== undefined && !(Number.isInteger(argv.concurrency) && argv.concurrency > 0)) {
                throw new UsageError("--concurrency must be a positive whole number");
              }
              return true;
            })
            .example('$0 schema export --config .mcp.json', "Export every server of a config file")
            .example('$0 schema export --stdio "node server.js" --id inventory', "Export one stdio server")
            .example('$0 schema export --endpoint http://127.0.0.1:3000/mcp --header "Authorization: Bearer ${TOKEN}"', "Export an HTTP server"),
        async (argv) => {
          const { schemaExport } = await import("./commands/schema-export.js");
          await schemaExport({
            ...sourceFlags(argv),
            timeout: argv.timeout,
            concurrency: argv.concurrency,
            output: argv.output,
            format: argv.format,
            check: argv.check,
            allowPartial: argv["allow-partial"],
            quiet: argv.quiet,
            json: argv.json,
          });
        },
      )
      .command(
        "discover",
        "Call the read-only tools of live servers to log what they return, for schema infer",
        (command) =>
          sourceOptions(command)
            .option("samples", { type: "string", describe: 'JSON file of arguments per tool: {"tool": [{...}], "server/tool": [...]}' })
            .option("observations", { type: "string", demandOption: true, describe: "Folder of the observation logs (one JSONL file per server and tool)" })
            .option("allow-tool", { type: "string", array: true, default: [], describe: "Also call this tool (name or server/tool) though not annotated read-only: you vouch it is harmless; one annotated destructiveHint: true is never called; repeatable" })
            .option("max-samples", { type: "number", describe: "Samples kept per tool, reservoir-sampled (default 200)" })
            .option("redact", { type: "boolean", default: false, describe: "Keep structure only: strings become length classes, numbers their kind" })
            .option("timeout", { type: "number", default: 30_000, describe: "Milliseconds allowed to connect, and for each call" })
            .check((argv) => {
              if (!(argv.timeout > 0)) throw new UsageError("--timeout must be a positive number of milliseconds");
              if (argv["max-samples"] !== undefined && !(Number.isInteger(argv["max-samples"]) && argv["max-samples"] > 0)) {
                throw new UsageError("--max-samples must be a positive whole number");
              }
              return true;
            })
            .example("$0 schema discover --config .mcp.json --samples samples.json --observations observations/", "Call the safe tools with the sample arguments"),
        async (argv) => {
          const { schemaDiscover } = await import("./commands/schema-discover.js");
          await schemaDiscover({
            ...sourceFlags(argv),
            samples: argv.samples,
            observations: argv.observations,
            allowTool: argv["allow-tool"],
            maxSamples: argv["max-samples"],
            redact: argv.redact,
            timeout: argv.timeout,
            quiet: argv.quiet,
            json: argv.json,
          });
        },
      )
      .command(
        "infer",
        "Infer output schemas from observation logs into the bundle's inferred blocks",
        (command) =>
          command
            .option("schema", { type: "string", describe: "The bundle to read (default: pmcp.config bundle, else schemas/mcp-bundle.json)" })
            .option("observations", { type: "string", demandOption: true, describe: "Folder of observation logs (CompositionClient observe, or schema discover)" })
            .option("output", { alias: "o", type: "string", describe: "Where to write the bundle (default: over --schema)" }),
        async (argv) => {
          const { schemaInfer } = await import("./commands/schema-infer.js");
          await schemaInfer({ schema: argv.schema, observations: argv.observations, output: argv.output, quiet: argv.quiet, json: argv.json });
        },
      )
      .command(
        "validate <files..>",
        "Check bundle or PMCP schema files; broken tool schemas are reported as warnings",
        (command) => command.positional("files", { type: "string", array: true, demandOption: true, describe: "Bundle files, PMCP foundation files or folders of them" }),
        async (argv) => {
          const { schemaValidate } = await import("./commands/schema-validate.js");
          await schemaValidate({ files: argv.files, quiet: argv.quiet, json: argv.json });
        },
      )
      .command(
        "diff <old> <new>",
        "Compare two bundles; each change is breaking, dangerous or safe for callers",
        (command) =>
          command
            .positional("old", { type: "string", demandOption: true, describe: "The bundle (or PMCP files) before" })
            .positional("new", { type: "string", demandOption: true, describe: "The bundle (or PMCP files) after" })
            .option("fail-on", { choices: ["breaking", "dangerous"] as const, default: "breaking" as const, describe: "Exit 1 when a change at or above this level is found" })
            .option("format", { choices: ["text", "json", "github", "junit"] as const, default: "text" as const, describe: "Output: text, json, GitHub annotations or JUnit XML" })
            .example("$0 schema diff main.json schemas/mcp-bundle.json --format github", "Annotate a pull request"),
        async (argv) => {
          const { schemaDiff } = await import("./commands/schema-diff.js");
          await schemaDiff({ old: argv.old, new: argv.new, failOn: argv["fail-on"], format: argv.format, quiet: argv.quiet, json: argv.json });
        },
      )
      .command(
        "normalize [bundle]",
        "Rewrite a bundle's schemas so an LLM provider accepts them and reads them the same way",
        (command) =>
          command
            .positional("bundle", { type: "string", describe: "The bundle to read (default: schemas/mcp-bundle.json)" })
            .option("profile", {
              choices: PROFILE_NAMES,
              demandOption: true,
              describe: "The provider whose rules to apply",
            })
            .option("output", { alias: "o", type: "string", describe: "Write the normalized bundle here (default: stdout)" }),
        async (argv) => {
          const { schemaNormalize } = await import("./commands/schema-normalize.js");
          await schemaNormalize({ profile: argv.profile, bundle: argv.bundle, output: argv.output, quiet: argv.quiet, json: argv.json });
        },
      )
      .command(
        "lint [bundle]",
        "Report what LLM providers would reject or misread in a bundle's schemas",
        (command) =>
          command
            .positional("bundle", { type: "string", describe: "The bundle to read (default: schemas/mcp-bundle.json)" })
            .option("profile", { type: "string", demandOption: true, describe: `Providers to check, comma-separated: ${PROFILE_NAMES.join(", ")}` })
            .option("format", { choices: ["text", "json", "github"] as const, default: "text" as const, describe: "Output: text, json or GitHub annotations" })
            .check((argv) => {
              const unknown = argv.profile.split(",").filter((name) => !(PROFILE_NAMES as readonly string[]).includes(name));
              if (unknown.length > 0) throw new UsageError(`--profile: unknown ${unknown.join(", ")} (choose from ${PROFILE_NAMES.join(", ")})`);
              return true;
            }),
        async (argv) => {
          const { schemaLint } = await import("./commands/schema-lint.js");
          const profiles = argv.profile.split(",") as (typeof PROFILE_NAMES)[number][];
          await schemaLint({ profiles, bundle: argv.bundle, format: argv.format, quiet: argv.quiet, json: argv.json });
        },
      )
      .demandCommand(1, "name a schema command: export, discover, infer, validate, diff, normalize or lint"),
  )
  .command("tools <command>", "Tools from TypeScript functions", (tools) =>
    tools
      .command(
        "from-source <file>",
        "Write a tool manifest from a module's exported async functions and their JSDoc",
        (command) =>
          command
            .positional("file", { type: "string", demandOption: true, describe: "The TypeScript module to read" })
            .option("output", { alias: "o", type: "string", describe: "Write the manifest here (default: stdout)" })
            .example("$0 tools from-source src/tools.ts -o tools.json", "Manifest for registerFunctions"),
        async (argv) => {
          const { toolsFromSourceCommand } = await import("./commands/tools-from-source.js");
          await toolsFromSourceCommand({ file: argv.file, output: argv.output, quiet: argv.quiet, json: argv.json });
        },
      )
      .demandCommand(1, "name a tools command: from-source"),
  )
  .command(
    "inspect <tool>",
    "Show a tool's description, input and output schemas and generated result type",
    (command) =>
      command
        .positional("tool", { type: "string", demandOption: true, describe: "The tool, as server/tool" })
        .option("schema", { type: "string", array: true, default: [], describe: "Bundle or PMCP schema files (default: pmcp.config bundle, else schemas/mcp-bundle.json)" })
        .example("$0 inspect inventory/get_stock", "What get_stock takes and returns"),
    async (argv) => {
      const { inspect } = await import("./commands/inspect.js");
      await inspect({ tool: argv.tool, schema: argv.schema, quiet: argv.quiet, json: argv.json });
    },
  )
  .command("serve <server>", "Run an MCP server for agents", (serve) =>
    serve
      .positional("server", { choices: ["inspect"] as const, demandOption: true, describe: "inspect: list_tools and inspect_tool over a bundle" })
      .option("schema", { type: "string", array: true, default: [], describe: "Bundle or PMCP schema files (default: pmcp.config bundle, else schemas/mcp-bundle.json)" })
      .option("http", { type: "number", describe: "Serve Streamable HTTP on 127.0.0.1 at this port (0: any free port) instead of stdio" })
      .check((argv) => {
        if (argv.http !== undefined && !(Number.isInteger(argv.http) && argv.http >= 0 && argv.http <= 65535)) throw new UsageError("--http must be a port number");
        return true;
      }),
    async (argv) => {
      const { serveInspect } = await import("./commands/serve-inspect.js");
      await serveInspect({ schema: argv.schema, http: argv.http, quiet: argv.quiet, json: argv.json });
    },
  )
  .command(
    "report",
    "Schema-quality report: tools by source and quality, observations, drift, tools/list size",
    (command) =>
      command
        .option("schema", { type: "string", array: true, default: [], describe: "Bundle or PMCP schema files (default: pmcp.config bundle, else schemas/mcp-bundle.json)" })
        .option("format", { choices: ["table", "json", "markdown"] as const, default: "table" as const, describe: "Output: a terminal table, json or Markdown" }),
    async (argv) => {
      const { report } = await import("./commands/report.js");
      await report({ schema: argv.schema, format: argv.format, quiet: argv.quiet, json: argv.json });
    },
  )
  .command(
    "generate",
    "Generate typed composition clients from a schema bundle",
    (command) =>
      command
        .option("schema", { type: "string", array: true, default: [], describe: "Bundle or PMCP schema files or folders (default: pmcp.config bundle, else schemas/mcp-bundle.json)" })
        .option("output", { alias: "o", type: "string", describe: "Folder for the generated clients (default: pmcp.config output, else generated/)" })
        .option("check", { type: "boolean", default: false, describe: "Exit 1 and list stale files when the output on disk differs; write nothing" })
        .option("templates", { type: "string", describe: "Folder of templates (server.ts.hbs, index.ts.hbs) overriding the built-in ones" })
        .option("runtime-import", { type: "string", describe: "Module generated files import the runtime from (default: @pmcp-codegen/runtime)" })
        .option("strict-objects", { type: "boolean", describe: "Reject keys that additionalProperties: false forbids (default: keep them)" })
        .option("min-quality", {
          choices: ["none", "low", "medium", "high"] as const,
          default: "low" as const,
          describe: "Use an inferred output schema (tools that declare none) only from this quality up",
        })
        .example("$0 generate", "Generate generated/ from schemas/mcp-bundle.json")
        .example("$0 generate --schema schemas/ -o src/clients --check", "Fail CI when the clients are stale"),
    async (argv) => {
      const { generate } = await import("./commands/generate.js");
      await generate(
        {
          schema: argv.schema,
          output: argv.output,
          check: argv.check,
          templates: argv.templates,
          runtimeImport: argv["runtime-import"],
          strictObjects: argv["strict-objects"],
          minQuality: argv["min-quality"],
          quiet: argv.quiet,
          json: argv.json,
        },
        version,
      );
    },
  )
  .demandCommand(1, "name a command")
  .strict()
  .version(version)
  .alias("h", "help")
  .fail((message, error) => {
    throw error ?? new UsageError(message);
  });

try {
  await cli.parseAsync();
} catch (error) {
  process.exitCode = report(error, process.argv.includes("--debug"));
}

/** One line per problem on stderr, the stack only with --debug; returns the exit code. */
function report(error: unknown, debug: boolean): number {
  // By name, not instanceof: importing the runtime here would load the SDK for every --help.
  const usage = error instanceof UsageError || ["YError", "ConfigurationError"].includes((error as Error | undefined)?.name ?? "");
  const message = error instanceof Error ? error.message : String(error);
  for (const line of message.split("\n")) process.stderr.write(`pmcp: ${line}\n`);
  if (usage) process.stderr.write("pmcp: run 'pmcp --help' for usage\n");
  if (debug && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
  return usage ? 2 : typeof (error as { exitCode?: unknown }).exitCode === "number" ? (error as { exitCode: number }).exitCode : 1;
}
