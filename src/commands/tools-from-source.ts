import { toJsonText } from "../bundle/serialize.js";
import { count } from "../count.js";
import { PmcpError } from "../errors.js";
import { writeOutput } from "../files/write-output.js";
import { toolsFromSourceCached } from "../tools/source-cache.js";
import type { SourceProblem } from "../tools/source-problems.js";
import type { CommandArgs } from "./shared/command.js";
import { say, warn } from "./shared/output.js";

/**
 * `pmcp tools from-source`: a tool manifest from a module's exported async functions.
 * Like a compiler, it reports each unsupported type with file and line and then fails,
 * writing nothing: a manifest with holes in its schemas would be served as if complete.
 */
export async function toolsFromSource(args: CommandArgs<"tools from-source">): Promise<void> {
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
