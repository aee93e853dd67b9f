import { relative, resolve } from "node:path";
import { CONFIG_KEYS } from "../../config/keys.js";
import type { LoadedConfig } from "../../config/pmcp-config.js";
import { type CommandPath, FLAGS, type Flag } from "./flags.js";

/** Where a setting's value came from: what `--json` reports and what error messages name. */
export type SettingOrigin = "flag" | "config" | "default";

export interface Setting<T> {
  value: T;
  origin: SettingOrigin;
  /** The setting as the user would name it: `-o`, `pmcp.config output`, or the bare name for a default. */
  name: string;
}

/** The row of `command`'s flag `name`. */
export function flagRow<K extends CommandPath>(command: K, name: (typeof FLAGS)[K][number]["name"]): Flag {
  const row = (FLAGS[command] as readonly Flag[]).find((candidate) => candidate.name === name);
  if (row === undefined) throw new Error(`pmcp ${command} has no flag --${name}`);
  return row;
}

/** A flag as messages name it: its one-letter alias (`-o`), else `--name`. */
export function flagName(row: Flag): string {
  const alias = row.option.alias;
  return typeof alias === "string" && alias.length === 1 ? `-${alias}` : `--${row.name}`;
}

/**
 * The one order every command resolves a setting in: the flag as given, else the `pmcp.config` key
 * its row names (a path there is relative to the config file, the result to the working directory),
 * else `fallback`; each named as the user would name it. `configKey` stands in for the row's key where
 * one flag stands for two (`-o` of `generate --lang rust` for `rust.output`).
 */
export function settingOf<T>(
  row: Flag,
  given: T | undefined,
  project: LoadedConfig | undefined,
  fallback: T,
  configKey?: string,
): Setting<T>;
export function settingOf<T>(row: Flag, given: T | undefined, project: LoadedConfig | undefined): Setting<T | undefined>;
export function settingOf<T>(
  row: Flag,
  given: T | undefined,
  project: LoadedConfig | undefined,
  fallback?: T,
  configKey: string | undefined = row.config,
): Setting<T | undefined> {
  if (given !== undefined) return { value: given, origin: "flag", name: flagName(row) };
  const configured = configKey === undefined ? undefined : (configValue(project, configKey) as T | undefined);
  if (configured !== undefined) return { value: configured, origin: "config", name: `pmcp.config ${configKey}` };
  return { value: fallback, origin: "default", name: configKey ?? flagName(row) };
}

/** The value of `key` (`bundle`, `observe.dir`) in the project's config, a path in it made relative to the working directory. */
export function configValue(project: LoadedConfig | undefined, key: string): unknown {
  if (project === undefined) return undefined;
  const [top = "", ...inner] = key.split(".");
  let value: unknown = (project.config as Record<string, unknown>)[top];
  for (const name of inner) value = (value as Record<string, unknown> | undefined)?.[name];
  const row = (CONFIG_KEYS as Record<string, { paths?: readonly string[] }>)[top];
  const isPath = row?.paths?.includes(inner.join(".")) === true;
  return isPath && typeof value === "string" ? relative(process.cwd(), resolve(project.dir, value)) : value;
}
