import { ConfigurationError } from "../errors.js";

/** `${VAR}`, `${VAR:-default}` (Claude Code) and `${env:VAR}` (VS Code). */
const VARIABLE = /\$\{(?:env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Replaces environment references in a config or flag value. A reference to an unset
 * variable without a default is a ConfigurationError naming the variable and where it was used.
 */
export function interpolate(value: string, where: string, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(VARIABLE, (_match, name: string, fallback: string | undefined) => {
    const found = env[name];
    if (found !== undefined) return found;
    if (fallback !== undefined) return fallback;
    throw new ConfigurationError(`${where}: environment variable ${name} is not set`);
  });
}

export function interpolateRecord(values: Readonly<Record<string, string>> | undefined, where: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(values ?? {})) result[key] = interpolate(value, `${where} ${key}`);
  return result;
}
