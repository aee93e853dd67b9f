import type { Argv } from "yargs";
import { type ArgsOf, defineCommand, type GlobalArgs } from "./shared/command.js";
import { deprecated, resolveInputs, schemaOption } from "./shared/inputs.js";
import { printJson } from "./shared/output.js";

const builder = (yargs: Argv<GlobalArgs>) =>
  schemaOption(yargs).option("format", {
    choices: ["table", "markdown", "json"] as const,
    default: "table" as const,
    describe: "Output: a terminal table or Markdown (json: deprecated, use --json)",
  });

export const reportCommand = defineCommand({
  command: "report",
  describe: "Schema-quality report: tools by source and quality, observations, drift, tools/list size",
  builder,
  handler: report,
});

/** `pmcp report`: the schema-quality report of a bundle. */
async function report(args: ArgsOf<typeof builder>): Promise<void> {
  const { readSchemaFiles } = await import("../bundle/read.js");
  const { formatMarkdown, formatTable } = await import("../report/format.js");
  const { qualityReport } = await import("../report/quality-report.js");
  if (args.format === "json") deprecated(args, "--format json", "--json");
  const { schema } = await resolveInputs(args.schema);
  const result = qualityReport((await readSchemaFiles(schema)).bundle);
  if (args.format === "json" || args.json) return printJson(result);
  process.stdout.write(args.format === "markdown" ? formatMarkdown(result) : formatTable(result));
}
