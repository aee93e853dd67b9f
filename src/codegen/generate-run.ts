import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { FileToWrite } from "@pmcp-codegen/runtime/internal";
import type { Quality } from "../bundle/quality.js";
import type { Bundle } from "../bundle/types.js";
import { projectPath } from "../cli/inputs.js";
import type { LoadedConfig } from "../config/pmcp-config.js";
import { PmcpError } from "../errors.js";
import { writeOutput } from "../files/write-output.js";
import { version } from "../version.js";
import type { GenerateWarning } from "./plan.js";
import type { RenderedFile, RenderOptions } from "./render.js";

const DEFAULT_OUTPUT = "generated";
const DEFAULT_RUNTIME_IMPORT = "@pmcp-codegen/runtime";

/** The generate flags; each wins over its `pmcp.config` setting. */
export interface GenerateFlags {
  output?: string | undefined;
  templates?: string | undefined;
  runtimeImport?: string | undefined;
  strictObjects?: boolean | undefined;
  minQuality: Quality;
}

/** Where a generate run writes and how it renders: the flag, else `pmcp.config`, else the default. */
export interface GenerateSettings {
  outDir: string;
  /** What chose `outDir`, for error messages: `-o`, `pmcp.config output` or `output`. */
  outFlag: string;
  templatesDir: string | undefined;
  options: RenderOptions;
}

export function generateSettings(flags: GenerateFlags, project: LoadedConfig | undefined, source: string): GenerateSettings {
  const outDir = flags.output ?? projectPath(project, project?.config.output) ?? DEFAULT_OUTPUT;
  const outFlag = flags.output !== undefined ? "-o" : project?.config.output !== undefined ? "pmcp.config output" : "output";
  const templatesDir = flags.templates ?? projectPath(project, project?.config.templates);
  return {
    outDir,
    outFlag,
    templatesDir,
    options: {
      source,
      runtimeImport: flags.runtimeImport ?? project?.config.runtimeImport ?? DEFAULT_RUNTIME_IMPORT,
      strictObjects: flags.strictObjects ?? project?.config.strictObjects ?? false,
      minQuality: flags.minQuality,
      generatorVersion: version,
      ...(templatesDir === undefined ? {} : { templatesDir }),
    },
  };
}

export interface ChangedFile extends RenderedFile {
  before: string | undefined;
  /** The tools whose types differ from the file on disk. */
  typesChanged: string[];
}

/** What a bundle renders to, against what the output folder holds now. */
export interface RenderedRun {
  files: RenderedFile[];
  warnings: GenerateWarning[];
  reused: string[];
  /** Files whose bytes differ from the disk, relative to the output folder. */
  changed: ChangedFile[];
  /** Modules generated earlier for servers no longer in the bundle, relative to the output folder. */
  leftover: string[];
}

/** Renders `bundle` and compares it with the output folder; `reuse` keeps modules the reuse cache vouches for. */
export async function renderRun(bundle: Bundle, settings: GenerateSettings, reuse: boolean): Promise<RenderedRun> {
  const { renderClients, toolsWithChangedTypes } = await import("./render.js");
  const { outDir } = settings;
  const existing = (path: string) => readFile(join(outDir, path), "utf8").catch(() => undefined);
  const result = await renderClients(bundle, settings.options, reuse ? existing : undefined);
  const changed: ChangedFile[] = [];
  const previous = await Promise.all(result.files.map((file) => existing(file.path)));
  for (const [index, file] of result.files.entries()) {
    const before = previous[index];
    if (before !== file.content)
      changed.push({ ...file, before, typesChanged: before === undefined ? [] : toolsWithChangedTypes(before, file.content) });
  }
  const leftover = await staleGeneratedFiles(outDir, new Set(result.files.map((file) => file.path)));
  return { ...result, changed, leftover };
}

/**
 * Writes the changed files of a run, all or nothing, and removes the leftover modules in the same
 * step, with any files `alongside` (`pmcp dev`'s bundle). A file there that we did not generate (a
 * hand-written index.ts) is never replaced.
 */
export async function writeRun(run: RenderedRun, settings: GenerateSettings, alongside: readonly FileToWrite[] = []): Promise<void> {
  const { isGeneratedFile } = await import("./render.js");
  const { outDir, outFlag } = settings;
  const foreign = run.changed.filter((file) => file.before !== undefined && !isGeneratedFile(file.before));
  if (foreign.length > 0) {
    throw new PmcpError(
      "IO_FAILED",
      `${foreign.map((file) => join(outDir, file.path)).join(", ")} not written by pmcp generate (no generated banner); not replacing it: move it away or choose another ${outFlag}`,
    );
  }
  // Writing cleans up the folders it writes into; a run that only removes modules cleans up too.
  await removeAbandonedTempFiles(outDir);
  await writeOutput(outFlag, [...alongside, ...run.changed.map((file) => ({ path: join(outDir, file.path), content: file.content }))], {
    remove: run.leftover.map((path) => join(outDir, path)),
  });
}

export function warningLine(warning: GenerateWarning): string {
  return `server "${warning.server}"${warning.tool ? ` tool "${warning.tool}"` : ""}${warning.pointer ? ` at ${warning.pointer}` : ""}: ${warning.message}`;
}

/** Modules we generated earlier for servers that are no longer in the bundle. */
async function staleGeneratedFiles(outDir: string, current: Set<string>): Promise<string[]> {
  const { isGeneratedFile } = await import("./render.js");
  const names = await readdir(outDir).catch(() => [] as string[]);
  const stale: string[] = [];
  for (const name of names.filter((name) => name.endsWith(".ts") && !current.has(name)).sort()) {
    if (isGeneratedFile(await readFile(join(outDir, name), "utf8").catch(() => ""))) stale.push(name);
  }
  return stale;
}

/** The output must be a folder (or not yet exist): a file there is a mistake on the command line or in pmcp.config. */
export async function expectFolder(outDir: string, flag: string): Promise<void> {
  const info = await stat(outDir).catch((error: NodeJS.ErrnoException) => (error.code === "ENOTDIR" ? "blocked" : undefined));
  if (info === "blocked" || (info !== undefined && !info.isDirectory()))
    throw new PmcpError("INVALID_ARGUMENT", `${flag} ${outDir}: a file is there, not a folder`);
}

/** Temp files an interrupted run left behind (see writeFilesAtomically). */
export async function removeAbandonedTempFiles(outDir: string): Promise<void> {
  const { removeStaleTempFiles } = await import("@pmcp-codegen/runtime/internal");
  await removeStaleTempFiles(outDir);
}
