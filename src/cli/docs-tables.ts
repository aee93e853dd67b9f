/**
 * The docs' generated tables: each command's flags, made from the commands' own declarations (their
 * yargs builders and `GLOBAL_OPTIONS`), so that a flag's description is written once and shown alike
 * by `--help` and in `docs/commands/`; and the config reference, made from the rows of `CONFIG_KEYS`.
 * `npm run docs` writes them between a page's markers; a test checks that every page is as they make it.
 */
import { createRequire } from "node:module";
import type YargsFactory from "yargs";
import type { Argv } from "yargs";
import type { GlobalArgs } from "../commands/shared/command.js";
import { FLAGS, type Flag } from "../commands/shared/flags.js";
import { CONFIG_KEYS } from "../config/keys.js";
import { commandPaths, GLOBAL_OPTIONS } from "./commands.js";

const yargs = createRequire(import.meta.url)("yargs") as typeof YargsFactory;

/** What yargs keeps of its options (`getOptions()`, public but missing from its type definitions). */
interface DeclaredOptions {
  key: Record<string, boolean>;
  alias: Record<string, string[]>;
  default: Record<string, unknown>;
  choices: Record<string, unknown[]>;
  boolean: string[];
  string: string[];
  number: string[];
  array: string[];
}

interface Internals {
  getOptions(): DeclaredOptions;
  getInternalMethods(): { getUsageInstance(): { getDescriptions(): Record<string, string | undefined> } };
}

/** yargs' own options, and those every command takes, shown once on the commands' index. */
const NOT_A_COMMANDS_OWN = new Set(["help", "version", ...Object.keys(GLOBAL_OPTIONS)]);

/** A page's generated table, between its markers: `<!-- flags: pmcp schema export -->` … `<!-- /generated -->`. */
const MARKER = /<!-- ((?:flags: pmcp(?: [a-z-]+)*)|config keys) -->\n[\s\S]*?<!-- \/generated -->/g;

/** Every table a page may ask for, by its marker's name: `flags: pmcp` (the flags every command takes), `flags: pmcp <command>`, `config keys`. */
export function docsTables(): Map<string, string> {
  const tables = new Map<string, string>([
    ["flags: pmcp", table(yargs([]).options(GLOBAL_OPTIONS), new Set(["help", "version"]))],
    ["config keys", configKeysTable()],
  ]);
  for (const { path, command } of commandPaths()) {
    // Outside a parse, yargs keeps a positional as it keeps an option: its usage says which are which.
    const positionals = [...command.command.matchAll(/[<[]([^\]>.]+)/g)].map((match) => match[1] ?? "");
    const built = command.builder(yargs([]) as Argv<GlobalArgs>);
    tables.set(
      `flags: pmcp ${path}`,
      `${argumentsTable(built, positionals)}${table(built, new Set([...NOT_A_COMMANDS_OWN, ...positionals]))}`,
    );
  }
  return tables;
}

/** `page` with each marked table made anew; throws on a marker naming no table. */
export function withDocsTables(page: string, tables: ReadonlyMap<string, string>): string {
  return page.replace(MARKER, (_whole, name: string) => {
    const made = tables.get(name);
    if (made === undefined) throw new Error(`<!-- ${name} --> names no table: no such command of pmcp`);
    return `<!-- ${name} -->\n${made}<!-- /generated -->`;
  });
}

/** The tables a page has, by their markers' names. */
export function tablesOn(page: string): string[] {
  return [...page.matchAll(MARKER)].map((match) => match[1] ?? "");
}

/** The config reference: a row per key of `pmcp.config`, in `CONFIG_KEYS`' order. */
function configKeysTable(): string {
  const rows = Object.entries(CONFIG_KEYS).map(([name, row]) => {
    const flags = [flagsStandingFor(name), ...("flagsNote" in row ? [row.flagsNote] : [])].filter(Boolean).join("; ");
    return `| \`${row.shown ?? name}\` | ${cellText(row.describe)} | ${cellText(flags)} |\n`;
  });
  return `| Key | What it sets | Flags that stand for it |\n| --- | --- | --- |\n${rows.join("")}`;
}

/** The flags whose rows name config key `key` (or a key inside it), each group with the commands that take it: "`--x`, `--y` of `dev`, `exec`". */
function flagsStandingFor(key: string): string {
  const commandsOf = new Map<string, string[]>();
  for (const [command, flags] of Object.entries(FLAGS)) {
    for (const row of flags as readonly Flag[]) {
      if (row.config !== key && !row.config?.startsWith(`${key}.`)) continue;
      const shown = `\`--${row.name}\``;
      commandsOf.set(shown, [...(commandsOf.get(shown) ?? []), `\`${command}\``]);
    }
  }
  const flagsOf = new Map<string, string[]>();
  for (const [shown, commands] of commandsOf) {
    const where = commands.join(", ");
    flagsOf.set(where, [...(flagsOf.get(where) ?? []), shown]);
  }
  return [...flagsOf].map(([where, shown]) => `${shown.join(", ")} of ${where}`).join("; ");
}

/** The table of a command's positionals (`pmcp schema diff <old>`), or nothing. */
function argumentsTable(built: Argv<unknown>, positionals: readonly string[]): string {
  if (positionals.length === 0) return "";
  const descriptions = descriptionsOf(built);
  const rows = positionals.map((name) => `| \`<${name}>\` | ${cellText(descriptions[name] ?? "")} |\n`);
  return `| Argument | Description |\n| --- | --- |\n${rows.join("")}\n`;
}

function descriptionsOf(built: Argv<unknown>): Record<string, string | undefined> {
  return (built as unknown as Internals).getInternalMethods().getUsageInstance().getDescriptions();
}

function table(built: Argv<unknown>, leftOut: ReadonlySet<string>): string {
  const options = (built as unknown as Internals).getOptions();
  const descriptions = descriptionsOf(built);
  const aliases = new Set(Object.values(options.alias).flat());
  const rows = Object.keys(options.key)
    .filter((key) => !leftOut.has(key) && !aliases.has(key))
    .map((key) => {
      const flags = [key, ...(options.alias[key] ?? [])].map((name) => `\`${name.length === 1 ? "-" : "--"}${name}\``).join(", ");
      const cells = [flags, takes(options, key), defaultOf(options.default[key]), cellText(descriptions[key] ?? "")];
      return `| ${cells.join(" | ")} |\n`;
    });
  if (rows.length === 0) return "This command has no flags of its own.\n";
  return `| Flag | Value | Default | Description |\n| --- | --- | --- | --- |\n${rows.join("")}`;
}

/** What a flag takes; a flag declared with no type is a whole number checked by its row (`wholeNumberFlag` in commands/shared/flags.ts). */
function takes(options: DeclaredOptions, key: string): string {
  const choices = options.choices[key];
  const value =
    choices !== undefined
      ? choices.map((choice) => `\`${String(choice)}\``).join(", ")
      : options.boolean.includes(key)
        ? "boolean"
        : options.string.includes(key)
          ? "text"
          : options.number.includes(key)
            ? "number"
            : "whole number";
  return options.array.includes(key) ? `${value}, repeatable` : value;
}

function defaultOf(value: unknown): string {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return "";
  return `\`${cellText(JSON.stringify(value))}\``;
}

/** A table cell's text: a `|` would end the cell. */
function cellText(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}
