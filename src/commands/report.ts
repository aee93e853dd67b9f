import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { readSchemaFiles } from "../bundle-files/read.js";
import { recordedGeneration } from "../codegen/generation-record.js";
import { PmcpError } from "../errors.js";
import { readLogs } from "../learn/observation-logs.js";
import { formatMarkdown, formatTable } from "../report/format.js";
import { qualityReport } from "../report/quality-report.js";
import type { CommandArgs } from "./shared/command.js";
import { DEFAULT_OUTPUT } from "./shared/flags.js";
import { resolveInputs } from "./shared/inputs.js";
import { printable, printJson, warn } from "./shared/output.js";
import { flagRow, settingOf } from "./shared/settings.js";

/** `pmcp report`: the schema-quality report of a bundle, with the history the generated clients record. */
export async function report(args: CommandArgs<"report">): Promise<void> {
  const { project, schema } = await resolveInputs(args.schema, args.output === undefined ? { project: "always" } : {});
  const index = await readFile(
    join(settingOf(flagRow("report", "output"), args.output, project, DEFAULT_OUTPUT).value, "index.ts"),
    "utf8",
  ).catch(() => "");
  const observations = settingOf(flagRow("report", "observations"), undefined, project).value;
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
async function observationLogs(args: CommandArgs<"report">, configured: string | undefined) {
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
