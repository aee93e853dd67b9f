import { access, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { PmcpError } from "../errors.js";
import type { PmcpConfig } from "./define-config.js";
import { CONFIG_KEYS } from "./keys.js";

/** Built on first use: most runs have no config file, and a no-op `generate` should not pay for loading zod. */
async function configSchema() {
  const { z } = await import("zod");
  return z.strictObject(Object.fromEntries(Object.entries(CONFIG_KEYS).map(([name, row]) => [name, row.schema(z).optional()])));
}

export interface LoadedConfig {
  path: string;
  /** The config file's folder: relative paths in it resolve here. */
  dir: string;
  config: PmcpConfig;
}

/** The names `pmcp.config` may have, first found first used. */
export const CONFIG_FILE_NAMES = ["pmcp.config.ts", "pmcp.config.mts", "pmcp.config.mjs", "pmcp.config.js", "pmcp.config.json"];

/** Finds and loads the first `pmcp.config.*` in `cwd`; TypeScript configs load through jiti. */
export async function loadPmcpConfig(cwd: string = process.cwd()): Promise<LoadedConfig | undefined> {
  for (const name of CONFIG_FILE_NAMES) {
    const path = join(cwd, name);
    const exists = await access(path).then(
      () => true,
      () => false,
    );
    if (!exists) continue;
    const [{ parseJsonValue, readJsonFile }, schema] = await Promise.all([import("../files/read-json.js"), configSchema()]);
    const config = name.endsWith(".json")
      ? await readJsonFile(path, schema, { code: "INVALID_CONFIG" })
      : parseJsonValue(await loadModule(path, name), name, schema, { code: "INVALID_CONFIG" });
    return { path, dir: dirname(resolve(path)), config: config as PmcpConfig };
  }
  return undefined;
}

/**
 * The default export of a `pmcp.config` module; TypeScript loads through jiti. Loaded as it is
 * now, not from a module cache: `pmcp dev` loads it again after each edit.
 */
async function loadModule(path: string, name: string): Promise<unknown> {
  try {
    if (name.endsWith(".ts") || name.endsWith(".mts")) {
      const { createJiti } = await import("jiti");
      return await createJiti(import.meta.url, { moduleCache: false }).import(path, { default: true });
    }
    const { mtimeMs } = await stat(path);
    return (await import(`${pathToFileURL(path).href}?mtime=${mtimeMs}`)).default;
  } catch (error) {
    throw new PmcpError("INVALID_CONFIG", `cannot load ${name}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
}
