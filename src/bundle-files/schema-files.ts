import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { PmcpError } from "../errors.js";

/** The files `readSchemaFiles` reads for these paths: files as given, folders as their `.json` files. */
export async function schemaFilePaths(paths: readonly string[]): Promise<string[]> {
  return (await Promise.all(paths.map(expandPath))).flat();
}

async function expandPath(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => undefined);
  if (info === undefined) throw new PmcpError("NOT_FOUND", `${path}: no such file or folder`);
  if (!info.isDirectory()) return [path];
  const names = (await readdir(path))
    .filter((name) => name.endsWith(".json") && !name.endsWith(".schema.json") && !name.startsWith("."))
    .sort();
  if (names.length === 0) throw new PmcpError("NOT_FOUND", `${path}: the folder has no .json files`);
  return names.map((name) => join(path, name));
}
