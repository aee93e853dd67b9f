import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./cli.js";

const exec = promisify(execFile);

/** The two packages as getting started's Install section (docs/getting-started.md) has a user pack them: their tarballs' paths. */
export interface Tarballs {
  codegen: string;
  runtime: string;
}

/** The two packages' folders in this checkout. */
export const PACKAGES = { codegen: ROOT, runtime: join(ROOT, "packages/runtime") } as const;

/** Packs pmcp-codegen and @pmcp-codegen/runtime, as built here, into `dir`. */
export async function packTarballs(dir: string): Promise<Tarballs> {
  const pack = async (from: string) => {
    const { stdout } = await exec("npm", ["pack", "--json", "--pack-destination", dir], { cwd: from, maxBuffer: 64 * 1024 * 1024 });
    const [{ filename }] = JSON.parse(stdout) as [{ filename: string }];
    return join(dir, filename);
  };
  const [codegen, runtime] = await Promise.all([pack(PACKAGES.codegen), pack(PACKAGES.runtime)]);
  return { codegen: codegen!, runtime: runtime! };
}

/** The paths `npm pack` would put in the tarball of the package in `dir`. */
export async function packedFiles(dir: string): Promise<string[]> {
  const { stdout } = await exec("npm", ["pack", "--dry-run", "--json"], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout) as [{ files: { path: string }[] }];
  return packed.files.map((file) => file.path).sort();
}

/** The version of a package this checkout installed: one the local npm cache holds. */
export function installedVersion(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string }).version;
}

/**
 * A package spec as the docs write it (`zod`, `typescript@5`), pinned to the version this checkout
 * installed when that version is the one meant (same major, or none named), so that npm finds it in the
 * local cache; any other spec is kept as it is.
 */
export function pinnedToCheckout(spec: string): string {
  const at = spec.lastIndexOf("@");
  const [name, range] = at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [spec, ""];
  let version: string;
  try {
    version = installedVersion(name);
  } catch {
    return spec;
  }
  return range === "" || version.split(".")[0] === range ? `${name}@${version}` : spec;
}

/**
 * Runs `npm install` in `cwd` from the local npm cache (`--prefer-offline`: the tarballs and metadata the
 * checkout's own install left there), with no audit, funding or install scripts.
 */
export async function npmInstall(cwd: string, args: readonly string[]): Promise<void> {
  await exec("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--ignore-scripts", ...args], {
    cwd,
    maxBuffer: 64 * 1024 * 1024,
  });
}
