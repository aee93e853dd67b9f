import type { Argv } from "yargs";
import { PmcpError } from "../errors.js";
import { type ArgsOf, defineCommand, type GlobalArgs } from "./shared/command.js";
import { FLAGS, withFlags } from "./shared/flags.js";
import { resolveInputs } from "./shared/inputs.js";
import { printable, printJson, warn } from "./shared/output.js";
import { outputSetting, projectPath } from "./shared/settings.js";

const builder = (yargs: Argv<GlobalArgs>) => withFlags(yargs, FLAGS.report);

export const reportCommand = defineCommand({
  command: "report",
  describe: "Schema-quality report: tools by source and quality, drift, recent improvements, recommendations, most used tools",
  builder,
  handler: report,
});

/** `pmcp report`: the schema-quality report of a bundle, with the history the generated clients record. */
async function report(args: ArgsOf<typeof builder>): Promise<void> {
  const { readFile } = await import("node:fs/promises");
  const { join } = await import("node:path");
  const { readSchemaFiles } = await import("../bundle-files/read.js");
  const { recordedGeneration } = await import("../codegen/generation-record.js");
  const { formatMarkdown, formatTable } = await import("../report/format.js");
  const { qualityReport } = await import("../report/quality-report.js");
  const { project, schema } = await resolveInputs(args.schema, args.output === undefined ? { project: "always" } : {});
  const index = await readFile(join(outputSetting(args.output, project).value, "index.ts"), "utf8").catch(() => "");
  const observations = projectPath(project, project?.config.observe?.dir);
  const result = qualityReport((await readSchemaFiles(schema)).bundle, {
    generation: recordedGeneration(index),
    observations,
    configured: new Set(Object.keys(project?.config.servers ?? {})),
    logs: await observationLogs(args, args.observations ?? observations),
  });
  if (args.json) return printJson(result);
  process.stdout.write(printable(args.format === "markdown" ? formatMarkdown(result) : formatTable(result)));
}

/**
 * The logs the counts are taken from, as they are now; none when no folder is named and
 * `observations/` is not there, or the configured folder has no logs yet.
 */
async function observationLogs(args: ArgsOf<typeof builder>, configured: string | undefined) {
  const { readLogs } = await import("../learn/observation-logs.js");
  const dir = configured ?? "observations";
  try {
    const { logs, failed } = await readLogs(dir);
    for (const line of failed) warn(args, line);
    return logs;
  } catch (error) {
    // A folder not made yet holds no counts; one named on the command line must be there.
    if (args.observations !== undefined || !(error instanceof PmcpError && error.code === "NOT_FOUND")) throw error;
    return undefined;
  }
}
