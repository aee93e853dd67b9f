import { relative, resolve } from "node:path";
import type { PmcpConfig } from "../../config/define-config.js";
import type { LoadedConfig } from "../../config/pmcp-config.js";

/** Where a setting's value came from: what `--json` reports and what error messages name. */
export type SettingOrigin = "flag" | "config" | "default";

export interface Setting<T> {
  value: T;
  origin: SettingOrigin;
  /** The setting as the user would name it: `-o`, `pmcp.config output`, or the bare name for a default. */
  name: string;
}

/**
 * The one order every command resolves a setting in: the flag, else `pmcp.config`, else the
 * default. `flag` and `key` are the flag's and the config key's spellings, for `name`.
 */
export function resolveSetting<T>(
  flag: { name: string; value: T | undefined },
  config: { key: string; value: T | undefined },
  fallback: T,
): Setting<T> {
  if (flag.value !== undefined) return { value: flag.value, origin: "flag", name: flag.name };
  if (config.value !== undefined) return { value: config.value, origin: "config", name: `pmcp.config ${config.key}` };
  return { value: fallback, origin: "default", name: config.key };
}

/** A path setting: a path from `pmcp.config` is relative to the config file, the result to the working directory. */
export function resolvePathSetting(
  flag: { name: string; value: string | undefined },
  project: LoadedConfig | undefined,
  key: "bundle" | "output" | "templates",
  fallback: string,
): Setting<string>;
export function resolvePathSetting(
  flag: { name: string; value: string | undefined },
  project: LoadedConfig | undefined,
  key: "bundle" | "output" | "templates",
  fallback?: undefined,
): Setting<string | undefined>;
export function resolvePathSetting(
  flag: { name: string; value: string | undefined },
  project: LoadedConfig | undefined,
  key: "bundle" | "output" | "templates",
  fallback?: string,
): Setting<string | undefined> {
  return resolveSetting(flag, { key, value: projectPath(project, project?.config[key]) }, fallback);
}

/** A path from `pmcp.config`, relative to the working directory; undefined when not configured. */
export function projectPath(project: LoadedConfig | undefined, path: string | undefined): string | undefined {
  return path === undefined || project === undefined ? undefined : relative(process.cwd(), resolve(project.dir, path));
}

/** Where generated clients go unless told. */
export const DEFAULT_OUTPUT = "generated";

/** The folder of the generated clients: `-o`, else `pmcp.config` `output`, else `generated/`. */
export function outputSetting(flag: string | undefined, project: LoadedConfig | undefined): Setting<string> {
  return resolvePathSetting({ name: "-o", value: flag }, project, "output", DEFAULT_OUTPUT);
}

/**
 * `--strict-objects`, else `pmcp.config` `strictObjects`, else off: `pmcp generate` and code mode
 * resolve it alike, so that a program judges results as the project's generated clients do.
 */
export function strictObjectsSetting(flag: boolean | undefined, config: PmcpConfig | undefined): Setting<boolean> {
  return resolveSetting({ name: "--strict-objects", value: flag }, { key: "strictObjects", value: config?.strictObjects }, false);
}
