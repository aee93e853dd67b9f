/**
 * The docs' generated tables: each command's flags and arguments, made from the rows `--help` is
 * made from (`FLAGS`, `POSITIONALS`, `GLOBAL_OPTIONS`), so that a flag's description is written once and
 * shown alike by `--help` and in `docs/commands/`; and the config reference, made from `CONFIG_KEYS`.
 * `npm run docs` writes them between a page's markers; a test checks that every page is as they make it.
 */
import type { Options, PositionalOptions } from "yargs";
import { type CommandPath, FLAGS, type Flag, POSITIONALS } from "../commands/shared/flags.js";
import { CONFIG_KEYS } from "../config/keys.js";
import { GLOBAL_OPTIONS } from "./commands.js";

/** A page's generated table, between its markers: `<!-- flags: pmcp schema export -->` … `<!-- /generated -->`. */
const MARKER = /<!-- ((?:flags: pmcp(?: [a-z-]+)*)|config keys) -->\n[\s\S]*?<!-- \/generated -->/g;

/** Every table a page may ask for, by its marker's name: `flags: pmcp` (the flags every command takes), `flags: pmcp <command>`, `config keys`. */
export function docsTables(): Map<string, string> {
  const global = Object.entries(GLOBAL_OPTIONS).map(([name, option]): Flag => ({ name, option }));
  const tables = new Map<string, string>([
    ["flags: pmcp", table(global)],
    ["config keys", configKeysTable()],
  ]);
  const positionals = POSITIONALS as Partial<Record<CommandPath, Record<string, PositionalOptions>>>;
  for (const path of Object.keys(FLAGS) as CommandPath[]) {
    tables.set(`flags: pmcp ${path}`, `${argumentsTable(positionals[path] ?? {})}${table(FLAGS[path])}`);
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

/** The table of a command's arguments (`pmcp schema diff <old>`), or nothing. */
function argumentsTable(positionals: Readonly<Record<string, PositionalOptions>>): string {
  const rows = Object.entries(positionals).map(([name, option]) => `| \`<${name}>\` | ${cellText(option.describe ?? "")} |\n`);
  return rows.length === 0 ? "" : `| Argument | Description |\n| --- | --- |\n${rows.join("")}\n`;
}

function table(rows: readonly Flag[]): string {
  if (rows.length === 0) return "This command has no flags of its own.\n";
  const lines = rows.map(({ name, option }) => {
    const names = [name, ...[option.alias ?? []].flat()].map((spelling) => `\`${spelling.length === 1 ? "-" : "--"}${spelling}\``);
    const cells = [names.join(", "), takes(option), defaultOf(option.default), cellText(String(option.describe ?? ""))];
    return `| ${cells.join(" | ")} |\n`;
  });
  return `| Flag | Value | Default | Description |\n| --- | --- | --- | --- |\n${lines.join("")}`;
}

/** What a flag takes; a flag declared with no type is a whole number its row checks (`wholeNumberFlag` in commands/shared/flags.ts). */
function takes(option: Options): string {
  const value =
    option.choices !== undefined
      ? [option.choices]
          .flat()
          .map((choice) => `\`${String(choice)}\``)
          .join(", ")
      : option.type === "boolean"
        ? "boolean"
        : option.type === "string"
          ? "text"
          : option.type === "number"
            ? "number"
            : "whole number";
  return option.array === true ? `${value}, repeatable` : value;
}

function defaultOf(value: unknown): string {
  if (value === undefined || (Array.isArray(value) && value.length === 0)) return "";
  return `\`${cellText(JSON.stringify(value))}\``;
}

/** A table cell's text: a `|` would end the cell. */
function cellText(text: string): string {
  return text.replaceAll("|", "\\|").replaceAll("\n", " ");
}
