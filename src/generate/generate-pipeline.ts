import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { FileToWrite } from "@pmcp-codegen/runtime/internal/files";
import type { QualityChange } from "../bundle/quality-changes.js";
import type { QualitySummary } from "../bundle/quality-summary.js";
import type { Bundle } from "../bundle/types.js";
import { schemaFilePaths } from "../bundle-files/schema-files.js";
import { ReuseCache } from "../cache/reuse-cache.js";
import { isGeneratedFile, toolsWithChangedTypes } from "../codegen/module-record.js";
import type { RenderedFile, RenderOptions, RenderSteps } from "../codegen/render.js";
import type { GenerateWarning } from "../codegen/server-plan.js";
import { PmcpError } from "../errors.js";
import { writeOutput } from "../files/write-output.js";
import { rememberRun, stampInputs, unchangedRun } from "./run-record.js";
import { templateSources } from "./template-files.js";

/** The languages `pmcp generate` writes clients in. */
export type Lang = "typescript" | "rust";

/** What a language's output folder holds: its modules' extension, and the file that records the generation. */
const LAYOUTS: Record<Lang, { extension: string; index: string }> = {
  typescript: { extension: ".ts", index: "index.ts" },
  rust: { extension: ".rs", index: "mod.rs" },
};

/** Where a generate run writes and how it renders. */
export interface GenerateSettings {
  lang: Lang;
  outDir: string;
  /** What chose `outDir`, for error messages: `-o`, `pmcp.config output` or `output`. */
  outFlag: string;
  /** A folder whose `server.ts.hbs` / `index.ts.hbs` replace ours (TypeScript only). */
  templatesDir: string | undefined;
  options: RenderOptions;
}

/** What a generate run found and did. */
export interface GenerateOutcome {
  servers: string[];
  tools: number;
  /** Servers whose module was kept as it was. */
  reused: string[];
  warnings: GenerateWarning[];
  /** Files whose bytes differ from the disk (written unless checking). */
  changed: ChangedFile[];
  /** Modules generated earlier for servers no longer in the bundle, relative to the output folder (removed unless checking). */
  leftover: string[];
  /** Tools by source and quality as generated (what `index.ts` or `mod.rs` records), per server and in total. */
  quality: QualitySummary;
  /** Changes since the previous generation; undefined when there was no record of one. */
  changes: QualityChange[] | undefined;
}

/**
 * `pmcp generate`: reads the schema files, renders them through the reuse cache, compares the
 * result with the output folder and writes the files that differ, removing leftover modules.
 * A re-run with unchanged inputs into an untouched folder ends before the bundle is even read
 * (see RunRecord). With `check`, every file is rendered (a cached module would prove nothing)
 * and nothing is written. `inMemory` is rendered instead of the bundle in `schema` (learned from
 * observations and not written: `generate --observations --check`).
 */
export async function generateClients(
  schema: readonly string[],
  settings: GenerateSettings,
  check: boolean,
  inMemory?: Bundle,
): Promise<GenerateOutcome> {
  const { outDir } = settings;
  await expectFolder(outDir, settings.outFlag);
  // A run from a bundle in memory has no files to stamp: it is never remembered, nor skipped.
  const cache = check || inMemory !== undefined ? undefined : await ReuseCache.open();
  const schemaFiles = await schemaFilePaths(schema);
  const templates = await templateSources(settings.templatesDir);
  const { extension } = LAYOUTS[settings.lang];
  const key = cache?.key(["run", settings.lang, settings.options, templates.hash]);
  const last = cache === undefined || key === undefined ? undefined : await unchangedRun(cache, outDir, extension, key, schemaFiles);
  if (last !== undefined) {
    await removeAbandonedTempFiles(outDir);
    const { servers, tools, warnings, quality } = last;
    // The run that left the folder as it is was the previous generation, and this one changes nothing.
    return { servers, tools, reused: servers, warnings, changed: [], leftover: [], quality, changes: [] };
  }

  // Loaded only now: a re-run with unchanged inputs never pays for parsing and rendering.
  const { readSchemaFiles } = await import("../bundle-files/read.js");
  const { qualitySummary } = await import("../bundle/quality-summary.js");
  const inputs = cache === undefined ? undefined : await stampInputs(schemaFiles);
  const bundle = inMemory ?? (await readSchemaFiles(schema)).bundle;
  const run = await renderRun(bundle, settings, cache);
  const outcome: GenerateOutcome = {
    servers: bundle.servers.map((server) => server.id),
    tools: bundle.servers.reduce((sum, server) => sum + server.tools.length, 0),
    reused: run.reused,
    warnings: run.warnings,
    changed: run.changed,
    leftover: run.leftover,
    quality: qualitySummary(run.generation.record.servers, run.generation.record.qualities),
    changes: run.generation.changes,
  };
  if (check) return outcome;
  await writeRun(run, settings);
  if (cache !== undefined && key !== undefined && inputs !== undefined) {
    const { servers, tools, warnings, quality } = outcome;
    await rememberRun(cache, outDir, extension, { key, inputs, servers, tools, warnings, quality });
  }
  return outcome;
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
  /** What the new `index.ts` or `mod.rs` records, and the changes since the one on disk (see nextGeneration). */
  generation: RenderSteps["generation"];
  reused: string[];
  /** Files whose bytes differ from the disk, relative to the output folder. */
  changed: ChangedFile[];
  /** Modules generated earlier for servers no longer in the bundle, relative to the output folder. */
  leftover: string[];
}

/**
 * Renders `bundle` and compares it with the output folder; with a `cache`, keeps the modules it
 * vouches for. The generation `index.ts` (`mod.rs`) records continues the one on disk.
 */
export async function renderRun(bundle: Bundle, settings: GenerateSettings, cache: ReuseCache | undefined): Promise<RenderedRun> {
  const { renderReusing } = await import("./render-reusing.js");
  const { recordedGeneration } = await import("../codegen/generation-record.js");
  const { outDir } = settings;
  const layout = LAYOUTS[settings.lang];
  const templates = await templateSources(settings.templatesDir);
  const index = await readFile(join(outDir, layout.index), "utf8").catch(() => undefined);
  const previous = recordedGeneration(index ?? "");
  const planned =
    settings.lang === "rust"
      ? (await import("../codegen/rust/render-rust.js")).renderRustSteps(bundle, settings.options, previous)
      : (await import("../codegen/render.js")).renderSteps(bundle, settings.options, previous);
  const onDisk = await Promise.all(
    planned.steps.map((step) => (step.path === layout.index ? index : readFile(join(outDir, step.path), "utf8").catch(() => undefined))),
  );
  const result = await renderReusing(planned, onDisk, templates, cache);
  const changed = changedFiles(result.files, onDisk);
  const leftover = await staleGeneratedFiles(outDir, new Set(result.files.map((file) => file.path)), layout.extension);
  return { ...result, generation: planned.generation, changed, leftover };
}

/** The files whose bytes differ from `onDisk` (the same files' text, undefined where absent). */
function changedFiles(files: readonly RenderedFile[], onDisk: readonly (string | undefined)[]): ChangedFile[] {
  const changed: ChangedFile[] = [];
  for (const [index, file] of files.entries()) {
    const before = onDisk[index];
    if (before !== file.content)
      changed.push({ ...file, before, typesChanged: before === undefined ? [] : toolsWithChangedTypes(before, file.content) });
  }
  return changed;
}

/**
 * Writes the changed files of a run, all or nothing, and removes the leftover modules in the same
 * step, with any files `alongside` (`pmcp dev`'s bundle). A file there that we did not generate (a
 * hand-written index.ts) is never replaced.
 */
export async function writeRun(
  run: Pick<RenderedRun, "changed" | "leftover">,
  settings: GenerateSettings,
  alongside: readonly FileToWrite[] = [],
): Promise<void> {
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

/** Modules (files ending in `extension`) we generated earlier for servers that are no longer in the bundle. */
async function staleGeneratedFiles(outDir: string, current: Set<string>, extension: string): Promise<string[]> {
  const names = await readdir(outDir).catch(() => [] as string[]);
  const stale: string[] = [];
  for (const name of names.filter((name) => name.endsWith(extension) && !current.has(name)).sort()) {
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
async function removeAbandonedTempFiles(outDir: string): Promise<void> {
  const { removeStaleTempFiles } = await import("@pmcp-codegen/runtime/internal/files");
  await removeStaleTempFiles(outDir);
}
