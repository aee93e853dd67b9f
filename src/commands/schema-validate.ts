import { readSchemaFiles } from "../bundle/read.js";
import { findSchemaWarnings, formatWarning } from "../bundle/schema-warnings.js";
import { count, printJson, say, warn, type OutputOptions } from "../cli/output.js";

export interface SchemaValidateArgs extends OutputOptions {
  files: string[];
}

/** `pmcp schema validate`: check bundle or PMCP files against the bundle schema; broken tool schemas are warnings. */
export async function schemaValidate(args: SchemaValidateArgs): Promise<void> {
  const { bundle, files } = await readSchemaFiles(args.files);
  const warnings = bundle.servers.flatMap(findSchemaWarnings).map(formatWarning);
  const tools = bundle.servers.reduce((sum, server) => sum + server.tools.length, 0);
  for (const line of warnings) warn(args, line);
  if (args.json) printJson({ valid: true, files, servers: bundle.servers.length, tools, warnings });
  const formats = [...new Set(files.map((file) => file.format))].join(", ");
  say(args, `valid (${formats}): ${count(bundle.servers.length, "server")}, ${count(tools, "tool")}${warnings.length ? `, ${count(warnings.length, "warning")}` : ""}`);
}
