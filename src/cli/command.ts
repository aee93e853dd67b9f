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
  return command;
}

/** The parsed arguments a builder declares, for the command's handler. */
export type ArgsOf<B> = B extends (yargs: Argv<GlobalArgs>) => Argv<infer T> ? ArgumentsCamelCase<T> : never;
