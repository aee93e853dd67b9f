import { readdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Argv } from "yargs";
import { type ArgsOf, defineCommand, type GlobalArgs } from "../cli/command.js";
import { projectPath, resolveInputs, schemaOption } from "../cli/inputs.js";
import { count, printJson, say, warn, writeOutput } from "../cli/output.js";
import type { GenerateWarning } from "../codegen/plan.js";
import type { RenderedFile } from "../codegen/render.js";
import { PmcpError } from "../errors.js";
import { version } from "../version.js";

const DEFAULT_OUTPUT = "generated";
const DEFAULT_RUNTIME_IMPORT = "@pmcp-codegen/runtime";

const builder = (yargs: Argv<GlobalArgs>) =>
  schemaOption(yargs)
    .option("output", {
      alias: "o",
      type: "string",
      describe: "Folder for the generated clients (default: pmcp.config output, else generated/)",
    })
    .option("check", {
      type: "boolean",
      default: false,
      describe: "Exit 1 and list stale files when the output on disk differs; write nothing",
    })
    .option("templates", { type: "string", describe: "Folder of templates (server.ts.hbs, index.ts.hbs) overriding the built-in ones" })
    .option("runtime-import", {
      type: "string",
      describe: "Module generated files import the runtime from (default: @pmcp-codegen/runtime)",
    })
    .option("strict-objects", { type: "boolean", describe: "Reject keys that additionalProperties: false forbids (default: keep them)" })
    .option("min-quality", {
      choices: ["none", "low", "medium", "high"] as const,
      default: "low" as const,
      describe: "Use an inferred output schema (tools that declare none) only from this quality up",
    })
    .example("$0 generate", "Generate generated/ from schemas/mcp-bundle.json")
    .example("$0 generate --schema schemas/ -o src/clients --check", "Fail CI when the clients are stale");

export const generateCommand = defineCommand({
  command: "generate",
  describe: "Generate typed composition clients from a schema bundle",
  builder,
  handler: generate,
});

/** `pmcp generate`: typed clients from a bundle; flags win over `pmcp.config`, which wins over defaults. */
async function generate(args: ArgsOf<typeof builder>): Promise<void> {
  // Only what a re-run with unchanged inputs needs is loaded before it knows it has nothing to do.
  const { schemaFilePaths } = await import("../bundle/schema-files.js");
  const { templatesDigest } = await import("../codegen/templates.js");
  const { ReuseCache } = await import("../codegen/reuse-cache.js");
  const { rememberRun, stampInputs, unchangedRun } = await import("../codegen/run-record.js");
  const { project, schema } = await resolveInputs(args.schema, { project: "always" });
  const outDir = args.output ?? projectPath(project, project?.config.output) ?? DEFAULT_OUTPUT;
  const outFlag = args.output !== undefined ? "-o" : project?.config.output !== undefined ? "pmcp.config output" : "output";
  await expectFolder(outDir, outFlag);
  const templatesDir = args.templates ?? projectPath(project, project?.config.templates);
  const options = {
    source: schema.join(", "),
    runtimeImport: args.runtimeImport ?? project?.config.runtimeImport ?? DEFAULT_RUNTIME_IMPORT,
    strictObjects: args.strictObjects ?? project?.config.strictObjects ?? false,
    minQuality: args.minQuality,
    generatorVersion: version,
    ...(templatesDir === undefined ? {} : { templatesDir }),
  };

  // --check renders everything and compares it with the disk: a cached module would prove nothing.
  const cache = args.check ? undefined : await ReuseCache.open();
  const schemaFiles = await schemaFilePaths(schema);
  const key = cache?.key(["run", options, await templatesDigest(templatesDir)]);
  const last = cache === undefined || key === undefined ? undefined : await unchangedRun(cache, outDir, key, schemaFiles);
  if (last !== undefined) {
    if (!args.check) await removeAbandonedTempFiles(outDir);
    return report(args, {
      output: outDir,
      servers: last.servers.length,
      tools: last.tools,
      reused: last.servers,
      warnings: last.warnings,
      changed: [],
      typesChanged: [],
      removed: [],
    });
  }

  const { readSchemaFiles } = await import("../bundle/read.js");
  const { isGeneratedFile, renderClients, toolsWithChangedTypes } = await import("../codegen/render.js");
  const inputs = cache === undefined ? undefined : await stampInputs(schemaFiles);
  const { bundle } = await readSchemaFiles(schema);
  const existing = (path: string) => readFile(join(outDir, path), "utf8").catch(() => undefined);
  const result = await renderClients(bundle, options, args.check ? undefined : existing);
  const changed: (RenderedFile & { before: string | undefined; typesChanged: string[] })[] = [];
  const previous = await Promise.all(result.files.map((file) => existing(file.path)));
  for (const [index, file] of result.files.entries()) {
    const before = previous[index];
    if (before !== file.content)
      changed.push({ ...file, before, typesChanged: before === undefined ? [] : toolsWithChangedTypes(before, file.content) });
  }
  const leftover = await staleGeneratedFiles(outDir, new Set(result.files.map((file) => file.path)));
  const summary: Summary = {
    output: outDir,
    servers: bundle.servers.length,
    tools: bundle.servers.reduce((sum, server) => sum + server.tools.length, 0),
    reused: result.reused,
    warnings: result.warnings,
    changed: changed.map((file) => join(outDir, file.path)),
    typesChanged: changed.flatMap((file) => file.typesChanged.map((tool) => `${file.path.replace(/\.ts$/, "")}/${tool}`)),
    removed: leftover.map((path) => join(outDir, path)),
  };

  if (args.check) {
    for (const warning of result.warnings) warn(args, warningLine(warning));
    if (args.json) printJson({ ...summaryJson(summary), upToDate: changed.length + leftover.length === 0 });
    if (changed.length + leftover.length === 0) return say(args, `${outDir} is up to date`);
    for (const file of changed) {
      say(
        args,
        `stale: ${join(outDir, file.path)}${file.typesChanged.length > 0 ? ` (types changed: ${file.typesChanged.join(", ")})` : ""}`,
      );
    }
    for (const path of summary.removed) say(args, `stale: ${path}`);
    throw new PmcpError("OUT_OF_DATE", `${count(changed.length + leftover.length, "generated file")} out of date; run pmcp generate`);
  }

  // Ours to replace only if we wrote it: a hand-written index.ts in the folder stays.
  const foreign = changed.filter((file) => file.before !== undefined && !isGeneratedFile(file.before));
  if (foreign.length > 0) {
    throw new PmcpError(
      "IO_FAILED",
      `${foreign.map((file) => join(outDir, file.path)).join(", ")} not written by pmcp generate (no generated banner); not replacing it: move it away or choose another ${outFlag}`,
    );
  }
  // Writing cleans up the folders it writes into; a run that only removes modules cleans up too.
  await removeAbandonedTempFiles(outDir);
  await writeOutput(
    outFlag,
    changed.map((file) => ({ path: join(outDir, file.path), content: file.content })),
    { remove: summary.removed },
  );
  for (const path of summary.removed) say(args, `removed ${path}: generated earlier for a server that is not in this bundle`);
  if (cache !== undefined && key !== undefined && inputs !== undefined) {
    await rememberRun(cache, outDir, {
      key,
      inputs,
      servers: bundle.servers.map((server) => server.id),
      tools: summary.tools,
      warnings: result.warnings,
    });
  }
  report(args, summary);
}

interface Summary {
  output: string;
  servers: number;
  tools: number;
  reused: string[];
  warnings: GenerateWarning[];
  changed: string[];
  typesChanged: string[];
  removed: string[];
}

function summaryJson(summary: Summary) {
  return { ...summary, warnings: summary.warnings.length };
}

function warningLine(warning: GenerateWarning): string {
  return `server "${warning.server}"${warning.tool ? ` tool "${warning.tool}"` : ""}${warning.pointer ? ` at ${warning.pointer}` : ""}: ${warning.message}`;
}

/** Warnings, then the JSON summary or one line: the same whether the run rendered anything or not. */
function report(args: ArgsOf<typeof builder>, summary: Summary): void {
  for (const warning of summary.warnings) warn(args, warningLine(warning));
  if (args.json) printJson(summaryJson(summary));
  const reused = summary.reused.length > 0 ? `, ${summary.reused.length} unchanged` : "";
  say(
    args,
    `Generated ${summary.output}: ${count(summary.servers, "server")}${reused}, ${count(summary.tools, "tool")}${summary.warnings.length ? `, ${count(summary.warnings.length, "warning")}` : ""}`,
  );
}

/** Modules we generated earlier for servers that are no longer in the bundle. */
async function staleGeneratedFiles(outDir: string, current: Set<string>): Promise<string[]> {
  const { isGeneratedFile } = await import("../codegen/render.js");
  const names = await readdir(outDir).catch(() => [] as string[]);
  const stale: string[] = [];
  for (const name of names.filter((name) => name.endsWith(".ts") && !current.has(name)).sort()) {
    if (isGeneratedFile(await readFile(join(outDir, name), "utf8").catch(() => ""))) stale.push(name);
  }
  return stale;
}

/** The output must be a folder (or not yet exist): a file there is a mistake on the command line or in pmcp.config. */
async function expectFolder(outDir: string, flag: string): Promise<void> {
  const info = await stat(outDir).catch((error: NodeJS.ErrnoException) => (error.code === "ENOTDIR" ? "blocked" : undefined));
  if (info === "blocked" || (info !== undefined && !info.isDirectory()))
    throw new PmcpError("INVALID_ARGUMENT", `${flag} ${outDir}: a file is there, not a folder`);
}

/** Temp files an interrupted run left behind (see writeFilesAtomically). */
async function removeAbandonedTempFiles(outDir: string): Promise<void> {
  const { removeStaleTempFiles } = await import("@pmcp-codegen/runtime/internal");
  await removeStaleTempFiles(outDir);
}
