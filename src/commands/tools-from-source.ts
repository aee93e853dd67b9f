import { toJsonText } from "../bundle/serialize.js";
import { RuntimeFailure } from "../errors.js";
import { writeFilesAtomically } from "@pmcp-codegen/runtime/internal";
import { toolsFromSource } from "../tools/from-source.js";
import { count, say, warn, type OutputOptions } from "../cli/output.js";

export interface ToolsFromSourceArgs extends OutputOptions {
  file: string;
  output: string | undefined;
}

/**
 * `pmcp tools from-source`: a tool manifest from a module's exported async functions.
 * Like a compiler, it reports each unsupported type with file and line and then fails,
 * writing nothing: a manifest with holes in its schemas would be served as if complete.
 */
export async function toolsFromSourceCommand(args: ToolsFromSourceArgs): Promise<void> {
  const { manifest, problems } = toolsFromSource(args.file);
  if (problems.length > 0) {
    throw new RuntimeFailure(problems.map((problem) => `${problem.file}:${problem.line}:${problem.column}: ${problem.message}`).join("\n"));
  }
  const text = toJsonText(manifest);
  if (args.output === undefined) {
    process.stdout.write(text);
    return;
  }
  await writeFilesAtomically([{ path: args.output, content: text }]);
  if (manifest.tools.length === 0) warn(args, `${args.file} exports no async functions`);
  say(args, `Wrote ${args.output}: ${count(manifest.tools.length, "tool")} from ${args.file}`);
}
