import { join } from "node:path";
import type { Argv } from "yargs";
import { type ArgsOf, defineCommand, type GlobalArgs } from "../cli/command.js";
import { resolveInputs, schemaOption } from "../cli/inputs.js";
import { minQualityOption } from "../cli/options.js";
import { printJson, say, warn } from "../cli/output.js";
import { warningLine } from "../codegen/generate-run.js";
import type { GenerateWarning } from "../codegen/plan.js";
import { count } from "../count.js";
import { PmcpError } from "../errors.js";

/** Where and how clients are generated: the flags of `pmcp generate` and `pmcp dev`. */
export function generateOptions<T>(yargs: Argv<T>) {
  const named = yargs
    .option("output", {
      alias: "o",
      type: "string",
      describe: "Folder for the generated clients (default: pmcp.config output, else generated/)",
    })
    .option("templates", { type: "string", describe: "Folder of templates (server.ts.hbs, index.ts.hbs) overriding the built-in ones" })
    .option("runtime-import", {
      type: "string",
      describe: "Module generated files import the runtime from (default: @pmcp-codegen/runtime)",
    })
    .option("strict-objects", { type: "boolean", describe: "Reject keys that additionalProperties: false forbids (default: keep them)" });
  return minQualityOption(named, "Use an inferred output schema (tools that declare none) only from this quality up");
}

const builder = (yargs: Argv<GlobalArgs>) =>
  generateOptions(schemaOption(yargs))
    .option("check", {
      type: "boolean",
      default: false,
      describe: "Exit 1 and list stale files when the output on disk differs; write nothing",
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
  const { expectFolder, generateSettings, removeAbandonedTempFiles } = await import("../codegen/generate-run.js");
  const { project, schema } = await resolveInputs(args.schema, { project: "always" });
  const settings = generateSettings(args, project, schema.join(", "));
  const { outDir, options, templatesDir } = settings;
  await expectFolder(outDir, settings.outFlag);

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
  const { renderRun, writeRun } = await import("../codegen/generate-run.js");
  const inputs = cache === undefined ? undefined : await stampInputs(schemaFiles);
  const { bundle } = await readSchemaFiles(schema);
  const run = await renderRun(bundle, settings, !args.check);
  const { changed, leftover } = run;
  const summary: Summary = {
    output: outDir,
    servers: bundle.servers.length,
    tools: bundle.servers.reduce((sum, server) => sum + server.tools.length, 0),
    reused: run.reused,
    warnings: run.warnings,
    changed: changed.map((file) => join(outDir, file.path)),
    typesChanged: changed.flatMap((file) => file.typesChanged.map((tool) => `${file.path.replace(/\.ts$/, "")}/${tool}`)),
    removed: leftover.map((path) => join(outDir, path)),
  };

  if (args.check) {
    for (const warning of run.warnings) warn(args, warningLine(warning));
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

  await writeRun(run, settings);
  for (const path of summary.removed) say(args, `removed ${path}: generated earlier for a server that is not in this bundle`);
  if (cache !== undefined && key !== undefined && inputs !== undefined) {
    await rememberRun(cache, outDir, {
      key,
      inputs,
      servers: bundle.servers.map((server) => server.id),
      tools: summary.tools,
      warnings: run.warnings,
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
