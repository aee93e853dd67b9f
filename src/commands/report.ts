import { readSchemaFiles } from "../bundle/read.js";
import { configuredBundlePath } from "../config/pmcp-config.js";
import { formatMarkdown, formatTable } from "../report/format.js";
import { qualityReport } from "../report/quality-report.js";
import { printJson, type OutputOptions } from "../cli/output.js";

export interface ReportArgs extends OutputOptions {
  schema: string[];
  format: "table" | "json" | "markdown";
}

/** `pmcp report`: the schema-quality report of a bundle. */
export async function report(args: ReportArgs): Promise<void> {
  const { bundle } = await readSchemaFiles(args.schema.length > 0 ? args.schema : [await configuredBundlePath()]);
  const result = qualityReport(bundle);
  if (args.format === "json" || args.json) return printJson(result);
  process.stdout.write(args.format === "markdown" ? formatMarkdown(result) : formatTable(result));
}
