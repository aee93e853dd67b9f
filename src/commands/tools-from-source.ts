import type { Argv } from "yargs";
import { count } from "../count.js";
import { PmcpError } from "../errors.js";
import { writeOutput } from "../files/write-output.js";
import type { SourceProblem } from "../tools/source-problems.js";
import { type ArgsOf, defineCommand, type GlobalArgs } from "./shared/command.js";
import { FLAGS, withFlags } from "./shared/flags.js";
import { say, warn } from "./shared/output.js";

const builder = (yargs: Argv<GlobalArgs>) =>
  withFlags(yargs, FLAGS["tools from-source"])
    .positional("file", { type: "string", demandOption: true, describe: "The TypeScript module to read" })
    .example("$0 tools from-source src/tools.ts -o tools.json", "Manifest for registerFunctions");

export const toolsFromSourceCommand = defineCommand({
  command: "from-source <file>",
  describe: "Write a tool manifest from a module's exported async functions and classes, and their JSDoc",
  builder,
  handler: toolsFromSource,
});

/**
 * `pmcp tools from-source`: a tool manifest from a module's exported async functions.
 * Like a compiler, it reports each unsupported type with file and line and then fails,
 * writing nothing: a manifest with holes in its schemas would be served as if complete.
 */
async function toolsFromSource(args: ArgsOf<typeof builder>): Promise<void> {
  const { toolsFromSourceCached } = await import("../tools/source-cache.js");
  const { toJsonText } = await import("../bundle/serialize.js");
  const { manifest, problems, warnings } = await toolsFromSourceCached(args.file, args.cache);
  const located = (problem: SourceProblem) => `${problem.file}:${problem.line}:${problem.column}: ${problem.message}`;
  for (const warning of warnings) warn(args, located(warning));
  if (problems.length > 0) throw new PmcpError("INVALID_INPUT", problems.map(located).join("\n"));
  const text = toJsonText(manifest);
  if (args.output === undefined) {
    process.stdout.write(text);
    return;
  }
  await writeOutput("-o", [{ path: args.output, content: text }]);
  if (manifest.tools.length === 0) warn(args, `${args.file} exports no async functions, nor classes with async methods`);
  say(args, `Wrote ${args.output}: ${count(manifest.tools.length, "tool")} from ${args.file}`);
}
