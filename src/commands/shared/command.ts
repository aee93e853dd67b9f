import type { ArgumentsCamelCase, Argv, CommandModule } from "yargs";

/** The flags every command takes; declared once, in `program.ts`. */
export interface GlobalArgs {
  debug: boolean;
  quiet: boolean;
  json: boolean;
}

/**
 * One CLI command: its flags (the builder), and the handler, whose argument type is derived
 * from the builder, so a flag is declared once. Handlers load their heavy modules with
 * `import()`, so that `--help` and usage errors never pay for the SDK, zod or the compiler.
 */
export interface Command<T> extends CommandModule<GlobalArgs, T> {
  command: string;
  describe: string;
  builder: (yargs: Argv<GlobalArgs>) => Argv<T>;
  handler: (args: ArgumentsCamelCase<T>) => Promise<void>;
}

export function defineCommand<T>(command: Command<T>): Command<T> {
  return { ...command, builder: (yargs) => valuesRequired(command.builder(yargs), command.command) };
}

/**
 * A number or string flag given last with no value parses as absent (`--timeout` alone would
 * keep the default without a word), so every such flag requires its value; positionals excepted.
 */
function valuesRequired<T>(yargs: Argv<T>, usage: string): Argv<T> {
  const positionals = new Set([...usage.matchAll(/[<[]([^\]>.]+)/g)].map((match) => match[1] ?? ""));
  // getOptions is public in yargs but missing from its type definitions.
  const options = (yargs as unknown as { getOptions(): { number: string[]; string: string[] } }).getOptions();
  const keys = [...options.number, ...options.string].filter((key) => !positionals.has(key));
  return keys.length === 0 ? yargs : yargs.requiresArg(keys);
}

/** The parsed arguments a builder declares, for the command's handler. */
export type ArgsOf<B> = B extends (yargs: Argv<GlobalArgs>) => Argv<infer T> ? ArgumentsCamelCase<T> : never;
