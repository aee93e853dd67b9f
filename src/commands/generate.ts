import { readFile, readdir, rm } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { readSchemaFiles } from "../bundle/read.js";
import { isGeneratedFile, renderClients, toolsWithChangedTypes, type RenderedFile } from "../codegen/render.js";
import type { Quality } from "../infer/quality.js";
import { loadPmcpConfig } from "../config/pmcp-config.js";
import { RuntimeFailure } from "../errors.js";
import { writeFilesAtomically } from "@pmcp-codegen/runtime/internal";
import { count, printJson, say, warn, type OutputOptions } from "../cli/output.js";
import { DEFAULT_BUNDLE_PATH } from "../bundle/defaults.js";

export interface GenerateArgs extends OutputOptions {
  schema: string[];
  output: string | undefined;
  check: boolean;
  templates: string | undefined;
  runtimeImport: string | undefined;
  strictObjects: boolean | undefined;
  minQuality: Quality;
}

const DEFAULT_OUTPUT = "generated";
const DEFAULT_RUNTIME_IMPORT = "@pmcp-codegen/runtime";

/** `pmcp generate`: typed clients from a bundle; flags win over `pmcp.config`, which wins over defaults. */
export async function generate(args: GenerateArgs, version: string): Promise<void> {
  const loaded = await loadPmcpConfig();
  const fromConfig = (path: string | undefined) => (path === undefined || loaded === undefined ? path : relative(process.cwd(), resolve(loaded.dir, path)));
  const schemaPaths = args.schema.length > 0 ? args.schema : [fromConfig(loaded?.config.bundle) ?? DEFAULT_BUNDLE_PATH];
  const outDir = args.output ?? fromConfig(loaded?.config.output) ?? DEFAULT_OUTPUT;
  const templatesDir = args.templates ?? fromConfig(loaded?.config.templates);

  const { bundle } = await readSchemaFiles(schemaPaths);
  const existing = (path: string) => readFile(join(outDir, path), "utf8").catch(() => undefined);
  const result = await renderClients(
    bundle,
    {
      source: schemaPaths.join(", "),
      runtimeImport: args.runtimeImport ?? loaded?.config.runtimeImport ?? DEFAULT_RUNTIME_IMPORT,
      strictObjects: args.strictObjects ?? loaded?.config.strictObjects ?? false,
      minQuality: args.minQuality,
      generatorVersion: version,
      ...(templatesDir === undefined ? {} : { templatesDir }),
    },
    // --check compares a full generation with the disk; reusing files would trust their hash lines.
    args.check ? undefined : existing,
  );
  for (const warning of result.warnings) {
    warn(args, `server "${warning.server}" tool "${warning.tool}"${warning.pointer ? ` at ${warning.pointer}` : ""}: ${warning.message}`);
  }

  const changed: (RenderedFile & { typesChanged: string[] })[] = [];
  for (const file of result.files) {
    const before = await existing(file.path);
    if (before !== file.content) changed.push({ ...file, typesChanged: before === undefined ? [] : toolsWithChangedTypes(before, file.content) });
  }
  const leftover = await staleGeneratedFiles(outDir, new Set(result.files.map((file) => file.path)));
  const tools = bundle.servers.reduce((sum, server) => sum + server.tools.length, 0);
  const summary = {
    output: outDir,
    servers: bundle.servers.length,
    tools,
    reused: result.reused,
    warnings: result.warnings.length,
    changed: changed.map((file) => join(outDir, file.path)),
    typesChanged: changed.flatMap((file) => file.typesChanged.map((tool) => `${file.path.replace(/\.ts$/, "")}/${tool}`)),
    removed: leftover.map((path) => join(outDir, path)),
  };

  if (args.check) {
    if (args.json) printJson({ ...summary, upToDate: changed.length + leftover.length === 0 });
    if (changed.length + leftover.length === 0) return say(args, `${outDir} is up to date`);
    for (const file of changed) {
      say(args, `stale: ${join(outDir, file.path)}${file.typesChanged.length > 0 ? ` (types changed: ${file.typesChanged.join(", ")})` : ""}`);
    }
    for (const path of summary.removed) say(args, `stale: ${path}`);
    throw new RuntimeFailure(`${count(changed.length + leftover.length, "generated file")} out of date; run pmcp generate`);
  }

  await writeFilesAtomically(changed.map((file) => ({ path: join(outDir, file.path), content: file.content })));
  await Promise.all(leftover.map((path) => rm(join(outDir, path), { force: true })));
  if (args.json) printJson(summary);
  const reused = result.reused.length > 0 ? `, ${result.reused.length} unchanged` : "";
  say(args, `Generated ${outDir}: ${count(bundle.servers.length, "server")}${reused}, ${count(tools, "tool")}${result.warnings.length ? `, ${count(result.warnings.length, "warning")}` : ""}`);
}

/** Modules we generated earlier for servers that are no longer in the bundle. */
async function staleGeneratedFiles(outDir: string, current: Set<string>): Promise<string[]> {
  const names = await readdir(outDir).catch(() => [] as string[]);
  const stale: string[] = [];
  for (const name of names.filter((name) => name.endsWith(".ts") && !current.has(name)).sort()) {
    if (isGeneratedFile(await readFile(join(outDir, name), "utf8").catch(() => ""))) stale.push(name);
  }
  return stale;
}
