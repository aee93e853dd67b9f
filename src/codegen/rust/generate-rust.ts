import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_MIN_QUALITY } from "../../bundle/quality.js";
import type { Bundle } from "../../bundle/types.js";
import {
  changedFiles,
  expectFolder,
  type GenerateOutcome,
  type GenerateSettings,
  staleGeneratedFiles,
  writeRun,
} from "../generate-pipeline.js";
import { nextGeneration } from "../generation-record.js";
import { renderRust } from "./render-rust.js";

/**
 * `pmcp generate --lang rust`: renders the bundle as Rust, compares it with the output folder and
 * writes the files that differ, all or nothing, removing `.rs` modules generated earlier for servers
 * no longer in the bundle; files it did not write are never replaced. With `check`, writes nothing.
 */
export async function generateRustClients(
  schema: readonly string[],
  settings: GenerateSettings,
  check: boolean,
  inMemory?: Bundle,
): Promise<GenerateOutcome> {
  const { outDir } = settings;
  await expectFolder(outDir, settings.outFlag);
  const { readSchemaFiles } = await import("../../bundle/read.js");
  const { qualitySummary } = await import("../../bundle/quality-summary.js");
  const bundle = inMemory ?? (await readSchemaFiles(schema)).bundle;
  const { files, warnings } = renderRust(bundle, settings.options);
  const onDisk = await Promise.all(files.map((file) => readFile(join(outDir, file.path), "utf8").catch(() => undefined)));
  const changed = changedFiles(files, onDisk);
  const leftover = await staleGeneratedFiles(outDir, new Set(files.map((file) => file.path)), ".rs");
  if (!check) await writeRun({ changed, leftover }, settings);
  // No generation is recorded beside Rust modules: there is nothing to compare quality with.
  const { record } = nextGeneration(bundle, undefined, settings.options.minQuality ?? DEFAULT_MIN_QUALITY);
  return {
    servers: bundle.servers.map((server) => server.id),
    tools: bundle.servers.reduce((sum, server) => sum + server.tools.length, 0),
    reused: [],
    warnings,
    changed,
    leftover,
    quality: qualitySummary(record.servers, record.qualities),
    changes: undefined,
  };
}
