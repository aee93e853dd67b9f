import type { Argv } from "yargs";
import { count } from "../count.js";
import { type ArgsOf, defineCommand, type GlobalArgs } from "./shared/command.js";
import { FLAGS, withFlags } from "./shared/flags.js";
import { resolveInputs } from "./shared/inputs.js";
import { printJson, say, warn } from "./shared/output.js";

const builder = (yargs: Argv<GlobalArgs>) => withFlags(yargs, FLAGS["schema validate"]);

export const schemaValidateCommand = defineCommand({
  command: "validate",
  describe: "Check bundle or PMCP schema files; broken tool schemas are reported as warnings",
  builder,
  handler: schemaValidate,
});

/** `pmcp schema validate`: check bundle or PMCP files against the bundle schema; broken tool schemas are warnings. */
async function schemaValidate(args: ArgsOf<typeof builder>): Promise<void> {
  const { readSchemaFiles } = await import("../bundle-files/read.js");
  const { findSchemaWarnings, formatWarning } = await import("../bundle/schema-warnings.js");
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
