// The flags several commands share, each declared once, with its help derived from the constants it
// describes and its check in the one shape (`--x must be a whole number ≥ 1, got 0`). Loaded for every
// command: it imports no SDK and no zod (hence the runtime's `internal/numbers`, not `internal`).
import {
  DEFAULT_MAX_MESSAGE_BYTES,
  timeoutProblem,
  type WholeNumberRange,
  wholeNumberProblem,
} from "@pmcp-codegen/runtime/internal/numbers";
import type { Argv } from "yargs";
import { DEFAULT_MIN_QUALITY, QUALITIES } from "../../bundle/quality.js";
import { PmcpError } from "../../errors.js";
import { EXEC_SETTINGS, type ExecSettingKey, execFlag } from "../../exec/limits.js";
import { PROFILES } from "../../providers/facts.js";

/**
 * The default of `--timeout` wherever it appears: how long a command waits for a server to connect
 * and list its tools. A call of the runtime (CompositionClient's `timeoutMs`) has 60 s by default,
 * since a tool's work takes longer than a listing; a server that does not list within 30 s is stuck.
 */
export const DEFAULT_TIMEOUT_MS = 30_000;

/** The flags that name live servers, for every command that talks to them (export, discover). */
export function sourceOptions<T>(yargs: Argv<T>) {
  const named = yargs
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
    });
  return wholeNumberOption(named, "max-message-bytes", {
    unit: "bytes",
    default: DEFAULT_MAX_MESSAGE_BYTES,
    describe: "Largest message a stdio server may write",
  }).option("protocol", {
    type: "string",
    describe:
      "Protocol era: auto (default: 2026-07-28 if the server speaks it, else the 2025 handshake), legacy (2025 only: servers that hang on the probe), or a version to require",
  });
}

/** `--timeout`: milliseconds a timer can wait, `what` saying what they bound. */
export function timeoutOption<T>(yargs: Argv<T>, what: string) {
  return yargs
    .option("timeout", { type: "number", default: DEFAULT_TIMEOUT_MS, describe: `Milliseconds allowed ${what}` })
    .check((args) => {
      const problem = timeoutProblem(args.timeout);
      if (problem !== undefined) throw new PmcpError("INVALID_ARGUMENT", `--timeout ${problem}`);
      return true;
    });
}

/** `--min-quality`: the lowest quality of inferred output schema that types a tool declaring none. */
export function minQualityOption<T>(yargs: Argv<T>, describe: string) {
  return yargs.option("min-quality", {
    choices: QUALITIES,
    default: DEFAULT_MIN_QUALITY,
    describe,
  });
}

/** `--strict-objects`, without a yargs default, so that an absent flag leaves it to `pmcp.config` `strictObjects`. */
export function strictObjectsOption<T>(yargs: Argv<T>) {
  return yargs.option("strict-objects", {
    type: "boolean",
    describe: "Reject keys that additionalProperties: false forbids (default: keep them)",
  });
}

/** `--profile` of the servers that show tools to agents: list_tools and inspect_tool show what that provider's model is given. */
export function modelProfileOption<T>(yargs: Argv<T>) {
  return yargs.option("profile", {
    choices: PROFILES,
    describe: "Show schemas and tool names as this provider's model is given them (as pmcp schema normalize writes them)",
  });
}

/** A number flag that must be a whole number in `range`; `describe` gets the range and default appended when they say something. */
export function wholeNumberOption<T, K extends string>(
  yargs: Argv<T>,
  name: K,
  spec: WholeNumberRange & { describe: string; default?: number },
) {
  const notes = [
    ...(spec.default === undefined ? [] : [`default ${spec.default}`]),
    ...(spec.max === undefined ? [] : [`at most ${spec.max}`]),
  ];
  return yargs
    .option(name, {
      // No type: yargs' numbers turn `0.0.0.0:8080` into NaN, and the message would not say what was given, while
      // its strings show as `[string]` in the help. Untyped, what looks like a number is one, and the rest stays text.
      // Untyped, a flag given no value would be `true`: yargs says what is missing instead.
      requiresArg: true,
      // A number once the check below has passed.
      coerce: (value: unknown) => asNumber(value) as number,
      describe: notes.length === 0 ? spec.describe : `${spec.describe} (${notes.join(", ")})`,
    })
    .check((args) => {
      const value: unknown = (args as Record<string, unknown>)[name];
      const problem = value === undefined ? undefined : wholeNumberProblem(value, spec);
      if (problem !== undefined) throw new PmcpError("INVALID_ARGUMENT", `--${name} ${problem}`);
      return true;
    });
}

/** A flag's text as the number it writes, else as it is, for the message to quote. */
function asNumber(value: unknown): unknown {
  return typeof value === "string" && value.trim() !== "" && Number.isFinite(Number(value)) ? Number(value) : value;
}

/**
 * `--max-time-ms`, `--max-heap-mb`, …: one flag per code-mode setting, without a yargs default, so
 * that an absent flag leaves the setting to `pmcp.config` (the default shows in the help instead).
 */
export function execSettingOptions<T>(yargs: Argv<T>): Argv<T & Partial<Record<ExecSettingKey, number | undefined>>> {
  let built: Argv<unknown> = yargs;
  for (const key of Object.keys(EXEC_SETTINGS) as ExecSettingKey[])
    built = wholeNumberOption(built, execFlag(key).slice(2), EXEC_SETTINGS[key]);
  return built as Argv<T & Partial<Record<ExecSettingKey, number | undefined>>>;
}
