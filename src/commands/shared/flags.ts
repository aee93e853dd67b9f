/**
 * Every flag of pmcp's commands, one row each: its name and alias, what it takes, its default and
 * range, its description, and the `pmcp.config` key it stands for. A command is the list of its rows
 * (`withFlags`), and its arguments are in `POSITIONALS`; `--help`, the checks of what is given and the docs' flag tables (cli/docs-tables.ts)
 * all come from these rows. A flag that means something else for another command is another row.
 * Loaded for every command: it imports no SDK and no zod (hence the runtime's `internal/numbers`).
 */
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  DEFAULT_MAX_SAMPLES,
  timeoutProblem,
  type WholeNumberRange,
  wholeNumberProblem,
} from "@pmcp-codegen/runtime/internal/numbers";
import type { Argv, InferredOptionTypes, Options, PositionalOptions } from "yargs";
import { DEFAULT_BUNDLE_PATH } from "../../bundle/defaults.js";
import { DEFAULT_MIN_QUALITY, QUALITIES } from "../../bundle/quality.js";
import type { CONFIG_KEYS } from "../../config/keys.js";
import { PmcpError } from "../../errors.js";
import { EXEC_SETTINGS, type ExecSettingKey, execFlag } from "../../exec/limits.js";
import { PROFILES } from "../../providers/facts.js";

/**
 * The default of `--timeout` wherever it appears: how long a command waits for a server to connect
 * and list its tools. A call of the runtime (CompositionClient's `timeoutMs`) has 60 s by default,
 * since a tool's work takes longer than a listing; a server that does not list within 30 s is stuck.
 */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Where generated clients go unless told. */
export const DEFAULT_OUTPUT = "generated";
/** The module generated files import the runtime from unless told. */
export const DEFAULT_RUNTIME_IMPORT = "@pmcp-codegen/runtime";
/** Where `schema export --format pmcp-foundation` writes unless told. */
export const DEFAULT_FOUNDATION_DIR = "schemas";
/** The address `pmcp serve --http` listens on unless told. */
export const LOOPBACK = "127.0.0.1";

export interface Flag<N extends string = string, O extends Options = Options> {
  /** The flag without its dashes: `output` for `--output` (its alias, `-o`, is in `option`). */
  name: N;
  option: O;
  /** The `pmcp.config` key the flag stands for (the flag wins over it), as the config reference names it. */
  config?: `${keyof typeof CONFIG_KEYS}${string}`;
  /** What is wrong with a value given, or nothing; said as `--<name> <problem>`, a usage error. */
  problem?: (value: unknown) => string | undefined;
}

function flag<const N extends string, const O extends Options>(name: N, option: O, extra: Omit<Flag, "name" | "option"> = {}): Flag<N, O> {
  return { name, option, ...extra };
}

/**
 * A flag that must be a whole number in `range`; its description gets the range and default appended
 * when they say something.
 */
function wholeNumberFlag<const N extends string>(
  name: N,
  spec: WholeNumberRange & { describe: string; default?: number },
  extra: Pick<Flag, "config"> = {},
) {
  const notes = [
    ...(spec.default === undefined ? [] : [`default ${spec.default}`]),
    ...(spec.max === undefined ? [] : [`at most ${spec.max}`]),
  ];
  return flag(
    name,
    {
      // No type: yargs' numbers turn `0.0.0.0:8080` into NaN, and the message would not say what was given, while
      // its strings show as `[string]` in the help. Untyped, what looks like a number is one, and the rest stays text.
      // Untyped, a flag given no value would be `true`: yargs says what is missing instead.
      requiresArg: true,
      // A number once the check has passed.
      coerce: (value: unknown) => asNumber(value) as number,
      describe: notes.length === 0 ? spec.describe : `${spec.describe} (${notes.join(", ")})`,
    },
    { ...extra, problem: (value) => wholeNumberProblem(value, spec) },
  );
}

/** A flag's text as the number it writes, else as it is, for the message to quote. */
function asNumber(value: unknown): unknown {
  return typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value;
}

/** `--timeout`: milliseconds a timer can wait, `what` saying what they bound. */
function timeoutFlag(what: string) {
  return flag(
    "timeout",
    { type: "number", default: DEFAULT_TIMEOUT_MS, describe: `Milliseconds allowed ${what}` },
    { problem: timeoutProblem },
  );
}

/** `--schema`, the one spelling of "the bundle this command reads"; `defaulted: false` for a command that reads none unless told. */
function schemaFlag(what: string, defaulted = true) {
  return flag(
    "schema",
    {
      type: "string",
      array: true,
      default: [] as string[],
      describe: defaulted ? `${what} (default: pmcp.config bundle, else ${DEFAULT_BUNDLE_PATH})` : what,
    },
    defaulted ? { config: "bundle" } : {},
  );
}

/** `--min-quality`: the lowest quality of inferred output schema that types a tool declaring none. */
function minQualityFlag(describe: string) {
  return flag("min-quality", { choices: QUALITIES, default: DEFAULT_MIN_QUALITY, describe });
}

/** The flags that name live servers, for every command that talks to them. */
const SOURCES = [
  flag(
    "endpoint",
    { type: "string", array: true, default: [] as string[], describe: "Streamable HTTP URL (falls back to HTTP+SSE); repeatable" },
    { config: "servers" },
  ),
  flag(
    "stdio",
    { type: "string", array: true, default: [] as string[], describe: "Command line of a server to spawn over stdio; repeatable" },
    { config: "servers" },
  ),
  flag("config", { type: "string", describe: "mcpServers config file (Claude, Cursor, .mcp.json, VS Code)" }, { config: "servers" }),
  flag("server", { type: "string", array: true, default: [] as string[], describe: "Only these ids of the --config file; repeatable" }),
  flag("id", { type: "string", describe: "Server id for a single --endpoint or --stdio (default: slug of serverInfo.name)" }),
  flag("header", {
    type: "string",
    array: true,
    default: [] as string[],
    describe: 'HTTP header "Name: value" (${VAR} allowed, never recorded); repeatable',
  }),
  wholeNumberFlag("max-message-bytes", {
    unit: "bytes",
    default: DEFAULT_MAX_MESSAGE_BYTES,
    describe: "Largest message a stdio server may write",
  }),
  flag("protocol", {
    type: "string",
    describe:
      "Protocol era: auto (default: 2026-07-28 if the server speaks it, else the 2025 handshake), legacy (2025 only: servers that hang on the probe), or a version to require",
  }),
] as const;

/** Where and how TypeScript clients are generated: `pmcp generate` and `pmcp dev`. */
const GENERATION = [
  flag(
    "output",
    { alias: "o", type: "string", describe: `Folder for the generated clients (default: pmcp.config output, else ${DEFAULT_OUTPUT}/)` },
    { config: "output" },
  ),
  flag(
    "templates",
    { type: "string", describe: "Folder of templates (server.ts.hbs, index.ts.hbs) overriding the built-in ones" },
    { config: "templates" },
  ),
  flag(
    "runtime-import",
    {
      type: "string",
      describe: `Module generated files import the runtime from, a package or the path of its index.js; its parsers come from <package>/parsers, or parsers.js beside it (default: ${DEFAULT_RUNTIME_IMPORT})`,
    },
    { config: "runtimeImport", problem: (value) => (value === "" ? "must name a module, got an empty string" : undefined) },
  ),
  // No yargs default, so that an absent flag leaves it to `pmcp.config`.
  flag(
    "strict-objects",
    { type: "boolean", describe: "Reject keys that additionalProperties: false forbids (default: keep them)" },
    { config: "strictObjects" },
  ),
  minQualityFlag("Use an inferred output schema (tools that declare none) only from this quality up"),
] as const;

/** `--http <port>`, `--allowed-host`, `--host` and `--auth-token-env`, shared by every `pmcp serve` server. */
const HTTP = [
  wholeNumberFlag("http", {
    min: 0,
    max: 65535,
    describe: "Serve Streamable HTTP on 127.0.0.1 (or --host) at this port (0: any free port) instead of stdio",
  }),
  flag("allowed-host", {
    type: "string",
    array: true,
    default: [] as string[],
    describe: "Also answer requests for this Host (host:port), e.g. a reverse proxy's in front of replicas; repeatable",
  }),
  flag("host", {
    type: "string",
    default: LOOPBACK,
    describe: "Listen on this address with --http; one other than a loopback address needs --auth-token-env or pmcp.config's serve.auth",
  }),
  flag("auth-token-env", {
    type: "string",
    describe:
      "With --http, answer only requests with Authorization: Bearer <the value of this environment variable>; others get 401 and where the protected resource's metadata is",
  }),
] as const;

/** `--profile` of the servers that show tools to agents: list_tools and inspect_tool show what that provider's model is given. */
const MODEL_PROFILE = flag("profile", {
  choices: PROFILES,
  describe: "Show schemas and tool names as this provider's model is given them (as pmcp schema normalize writes them)",
});

/** `--max-time-ms`, `--max-heap-mb`, …: one flag per code-mode setting, without a yargs default, so that an absent flag leaves it to `pmcp.config`. */
export function execSettingFlag<const K extends ExecSettingKey>(key: K) {
  return wholeNumberFlag(execFlag(key).slice(2) as KebabOf<K>, EXEC_SETTINGS[key], { config: `exec.${key}` });
}

type KebabOf<S extends string> = S extends `${infer Head}${infer Tail}`
  ? `${Head extends Lowercase<Head> ? Head : `-${Lowercase<Head>}`}${KebabOf<Tail>}`
  : S;

/** What `pmcp serve exec` and `pmcp exec` take: the servers, the bundle that types them, the limits, what results are judged by. */
const CODE_MODE = [
  schemaFlag(
    "Bundle that types the servers it records (by id; each starts on its first call) and, by its inferred blocks, tools without an output schema",
    false,
  ),
  ...SOURCES,
  execSettingFlag("maxTimeMs"),
  execSettingFlag("maxHeapMb"),
  execSettingFlag("maxCalls"),
  execSettingFlag("maxConcurrentCalls"),
  execSettingFlag("maxOutputBytes"),
  execSettingFlag("maxPrograms"),
  GENERATION[3],
  flag("observe", { type: "string", describe: "Record every tool call's result in observation logs in this folder" }),
  minQualityFlag("Type a tool by its inferred output schema (tools that declare none) only from this quality up"),
] as const;

/** `--schema` as most commands take it: the bundle they read, else pmcp.config's. */
export const SCHEMA = schemaFlag("Bundle or PMCP schema files or folders");

/** Each command's flags, in the order `--help` and the docs list them. */
export const FLAGS = {
  "schema export": [
    ...SOURCES,
    timeoutFlag("per server"),
    wholeNumberFlag("concurrency", { describe: "Servers contacted at once (default: all)" }),
    flag(
      "output",
      {
        alias: "o",
        type: "string",
        describe: `Bundle file, or folder for pmcp-foundation (default: pmcp.config bundle, else ${DEFAULT_BUNDLE_PATH}; ${DEFAULT_FOUNDATION_DIR}/)`,
      },
      { config: "bundle" },
    ),
    flag("format", {
      choices: ["bundle", "pmcp-foundation"] as const,
      default: "bundle" as const,
      describe: "One bundle file, or PMCP's per-server files",
    }),
    flag("check", {
      type: "boolean",
      default: false,
      describe: "Compare with the files on disk instead of writing; exit 1 when they differ, naming what differs",
    }),
    flag("allow-partial", { type: "boolean", default: false, describe: "Write the servers that succeeded even if others failed" }),
  ],
  "schema discover": [
    ...SOURCES,
    flag("samples", { type: "string", describe: 'JSON file of arguments per tool: {"tool": [{...}], "server/tool": [...]}' }),
    flag("observations", {
      type: "string",
      demandOption: true,
      describe: "Folder of the observation logs (one JSONL file per server and tool)",
    }),
    flag("allow-tool", {
      type: "string",
      array: true,
      default: [] as string[],
      describe:
        "Also call this tool (name or server/tool) though not annotated read-only: you vouch it is harmless; one annotated destructiveHint: true is never called; repeatable",
    }),
    flag("redact", {
      type: "boolean",
      default: false,
      describe: "Keep structure only: strings become length classes, numbers their kind",
    }),
    wholeNumberFlag("max-samples", { default: DEFAULT_MAX_SAMPLES, describe: "Samples kept per tool, reservoir-sampled" }),
    timeoutFlag("to connect, and for each call"),
  ],
  "schema infer": [
    SCHEMA,
    flag("observations", {
      type: "string",
      demandOption: true,
      describe: "Folder of observation logs (CompositionClient observe, or schema discover)",
    }),
    flag("output", { alias: "o", type: "string", describe: "Where to write the bundle (default: over --schema)" }),
  ],
  "schema validate": [SCHEMA],
  "schema diff": [
    schemaFlag("The bundle (or PMCP files) after"),
    flag("fail-on", {
      choices: ["breaking", "dangerous"] as const,
      default: "breaking" as const,
      describe: "Exit 1 when a change at or above this level is found",
    }),
    flag("format", {
      choices: ["text", "github", "junit"] as const,
      default: "text" as const,
      describe: "Output: text, GitHub annotations or JUnit XML (--json for JSON)",
    }),
  ],
  "schema normalize": [
    SCHEMA,
    flag("profile", { choices: PROFILES, demandOption: true, describe: "The provider whose rules to apply" }),
    flag("output", {
      alias: "o",
      type: "string",
      describe: "Write the normalized bundle here (default: stdout; with --json, only the summary is printed)",
    }),
  ],
  "schema lint": [
    SCHEMA,
    flag(
      "profile",
      { type: "string", demandOption: true, describe: `Providers to check, comma-separated: ${PROFILES.join(", ")}` },
      { problem: unknownProfiles },
    ),
    flag("format", {
      choices: ["text", "github"] as const,
      default: "text" as const,
      describe: "Output: text or GitHub annotations (--json for JSON)",
    }),
  ],
  generate: [
    SCHEMA,
    ...GENERATION,
    flag("lang", {
      choices: ["typescript", "rust"] as const,
      describe:
        "Language of the clients: typescript, or rust (mod.rs and one <server>.rs per server, serde types) (default: typescript, and rust too when pmcp.config has a rust entry)",
    }),
    flag("check", {
      type: "boolean",
      default: false,
      describe: "Exit 1 and list stale files when the output on disk differs; write nothing",
    }),
    flag("observations", {
      type: "string",
      describe: "Infer output schemas from this folder of observation logs into the bundle first, as schema infer does",
    }),
  ],
  dev: [
    ...SOURCES,
    timeoutFlag("per server to connect, or to list its tools"),
    ...GENERATION,
    flag(
      "bundle",
      { type: "string", describe: `Bundle file kept up to date (default: pmcp.config bundle, else ${DEFAULT_BUNDLE_PATH})` },
      { config: "bundle" },
    ),
    flag(
      "observations",
      {
        type: "string",
        describe:
          "Folder of observation logs to learn result types from as they are written, into the bundle and the clients (default: pmcp.config observe.dir)",
      },
      { config: "observe.dir" },
    ),
    flag(
      "debounce",
      { type: "number", default: 100, describe: "Milliseconds during which further changes join one regeneration" },
      { problem: (value) => wholeNumberProblem(value, { min: 0, max: 60_000, unit: "milliseconds" }) },
    ),
  ],
  inspect: [SCHEMA],
  "serve inspect": [SCHEMA, ...HTTP, MODEL_PROFILE],
  "serve exec": [
    ...CODE_MODE,
    ...HTTP,
    MODEL_PROFILE,
    flag("learn", {
      type: "boolean",
      default: false,
      describe:
        "Type a tool that declares no output schema by what its results show, once inferred at --min-quality, and write what is learned into the bundle (--schema, else pmcp.config's)",
    }),
  ],
  exec: CODE_MODE,
  report: [
    SCHEMA,
    flag(
      "output",
      {
        alias: "o",
        type: "string",
        describe: `Folder of the generated clients, whose index.ts records the improvements (default: pmcp.config output, else ${DEFAULT_OUTPUT}/)`,
      },
      { config: "output" },
    ),
    flag(
      "observations",
      {
        type: "string",
        describe:
          "Folder of observation logs each learned tool's counts are taken from (default: pmcp.config observe.dir, else observations/ when there is one)",
      },
      { config: "observe.dir" },
    ),
    flag("format", {
      choices: ["table", "markdown"] as const,
      default: "table" as const,
      describe: "Output: a terminal table or Markdown (--json for JSON)",
    }),
  ],
  "tools from-source": [
    flag("output", { alias: "o", type: "string", describe: "Write the manifest here (default: stdout)" }),
    flag("cache", {
      type: "boolean",
      default: true,
      describe: "Answer from the cache while the sources are unchanged; --no-cache compiles and records nothing",
    }),
  ],
} as const satisfies Record<string, readonly Flag[]>;

/** The commands that take arguments besides flags: each one's, in the order its usage names them. */
export const POSITIONALS = {
  "schema diff": { old: { type: "string", demandOption: true, describe: "The bundle (or PMCP files) before" } },
  inspect: { tool: { type: "string", demandOption: true, describe: "The tool, as server/tool" } },
  exec: {
    file: { type: "string", demandOption: true, describe: "The program (TypeScript, the body of an async function), or - for stdin" },
  },
  "tools from-source": { file: { type: "string", demandOption: true, describe: "The TypeScript module to read" } },
} as const satisfies Partial<Record<keyof typeof FLAGS, Record<string, PositionalOptions>>>;

/** `--profile` of `schema lint`: every name of the comma-separated list a provider's. */
function unknownProfiles(value: unknown): string | undefined {
  const unknown = String(value)
    .split(",")
    .filter((name) => !(PROFILES as readonly string[]).includes(name));
  return unknown.length === 0 ? undefined : `names unknown providers: ${unknown.join(", ")} (choose from ${PROFILES.join(", ")})`;
}

type OptionsOf<Fs extends readonly Flag[]> = { [F in Fs[number] as F["name"]]: F["option"] };

/** A command's name in `FLAGS`: the words after `pmcp`. */
export type CommandPath = keyof typeof FLAGS;

/** What a command's flags and arguments parse to, before the flags every command takes. */
export type ParsedFlags<K extends CommandPath> = InferredOptionTypes<OptionsOf<(typeof FLAGS)[K]>> &
  (K extends keyof typeof POSITIONALS ? InferredOptionTypes<(typeof POSITIONALS)[K]> : unknown);

/** `yargs` with `flags` declared, in their order, each with its check. */
export function withFlags<T, const Fs extends readonly Flag[]>(yargs: Argv<T>, flags: Fs): Argv<T & InferredOptionTypes<OptionsOf<Fs>>> {
  let built: Argv<unknown> = yargs;
  for (const { name, option, problem } of flags) {
    built = built.option(name, option);
    if (problem === undefined) continue;
    built = built.check((args) => {
      const value: unknown = (args as Record<string, unknown>)[name];
      const found = value === undefined ? undefined : problem(value);
      if (found !== undefined) throw new PmcpError("INVALID_ARGUMENT", `--${name} ${found}`);
      return true;
    });
  }
  return built as Argv<T & InferredOptionTypes<OptionsOf<Fs>>>;
}
