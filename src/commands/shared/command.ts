import type { ArgumentsCamelCase, Argv, CommandModule, PositionalOptions } from "yargs";
import { type CommandPath, FLAGS, type ParsedFlags, POSITIONALS, withFlags } from "./flags.js";

/** The flags every command takes; declared once, in `cli/commands.ts`. */
export interface GlobalArgs {
  debug: boolean;
  quiet: boolean;
  json: boolean;
}

/** What a command's handler is given: its flags and arguments as parsed, camel-cased, and the flags every command takes. */
export type CommandArgs<K extends CommandPath> = ArgumentsCamelCase<GlobalArgs & ParsedFlags<K>>;

/** One CLI command as yargs takes it. */
export interface Command extends CommandModule<GlobalArgs, unknown> {
  command: string;
  describe: string;
  builder: (yargs: Argv<GlobalArgs>) => Argv<unknown>;
  handler: (args: ArgumentsCamelCase<unknown>) => Promise<void>;
}

export interface CommandSpec<K extends CommandPath> {
  /** The usage after the group's word: `diff <old>`. */
  command: string;
  describe: string;
  examples?: readonly (readonly [command: string, what: string])[];
  /**
   * The module that runs the command, loaded when it runs: `--help` and usage errors never pay for
   * the SDK, zod or the compiler. It loads what it needs itself.
   */
  load: () => Promise<(args: CommandArgs<K>) => Promise<void>>;
}

/** A command: the flags `FLAGS[path]` declares, its arguments, its examples, and its one lazy load. */
export function defineCommand<K extends CommandPath>(path: K, spec: CommandSpec<K>): Command {
  const positionals: Record<string, PositionalOptions> =
    (POSITIONALS as Partial<Record<CommandPath, Record<string, PositionalOptions>>>)[path] ?? {};
  return {
    command: spec.command,
    describe: spec.describe,
    builder: (yargs) => {
      let built: Argv<unknown> = withFlags(yargs, FLAGS[path]);
      for (const [name, option] of Object.entries(positionals)) built = built.positional(name, option);
      for (const [command, what] of spec.examples ?? []) built = built.example(command, what);
      return valuesRequired(built, Object.keys(positionals));
    },
    handler: async (args) => (await spec.load())(args as CommandArgs<K>),
  };
}

/**
 * A number or string flag given last with no value parses as absent (`--timeout` alone would
 * keep the default without a word), so every such flag requires its value; positionals excepted.
 */
function valuesRequired<T>(yargs: Argv<T>, positionals: readonly string[]): Argv<T> {
  // getOptions is public in yargs but missing from its type definitions.
  const options = (yargs as unknown as { getOptions(): { number: string[]; string: string[] } }).getOptions();
  const keys = [...options.number, ...options.string].filter((key) => !positionals.includes(key));
  return keys.length === 0 ? yargs : yargs.requiresArg(keys);
}
