import { findSchemaWarnings, formatWarning } from "../bundle/schema-warnings.js";
import { readSchemaFiles } from "../bundle-files/read.js";
import { count } from "../count.js";
import type { CommandArgs } from "./shared/command.js";
import { resolveInputs } from "./shared/inputs.js";
import { printJson, say, warn } from "./shared/output.js";

/** `pmcp schema validate`: check bundle or PMCP files against the bundle schema; broken tool schemas are warnings. */
export async function schemaValidate(args: CommandArgs<"schema validate">): Promise<void> {
  const { schema } = await resolveInputs(args.schema);
  const { bundle, files } = await readSchemaFiles(schema);
  const warnings = bundle.servers.flatMap(findSchemaWarnings).map(formatWarning);
  const tools = bundle.servers.reduce((sum, server) => sum + server.tools.length, 0);
  for (const line of warnings) warn(args, line);
  if (args.json) printJson({ valid: true, files, servers: bundle.servers.length, tools, warnings });
  const formats = [...new Set(files.map((file) => file.format))].join(", ");
  say(
    args,
    `valid (${formats}): ${count(bundle.servers.length, "server")}, ${count(tools, "tool")}${warnings.length ? `, ${count(warnings.length, "warning")}` : ""}`,
  );
}
