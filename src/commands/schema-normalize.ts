import type { Argv } from "yargs";
import { type ArgsOf, defineCommand, type GlobalArgs } from "../cli/command.js";
import { deprecated, resolveInputs, schemaOption } from "../cli/inputs.js";
import { count, say, warn } from "../cli/output.js";
import { PROFILES } from "../providers/facts.js";

const builder = (yargs: Argv<GlobalArgs>) =>
  schemaOption(yargs)
    .positional("bundle", { type: "string", describe: "Deprecated: use --schema" })
    .option("profile", { choices: PROFILES, demandOption: true, describe: "The provider whose rules to apply" })
    .option("output", { alias: "o", type: "string", describe: "Write the normalized bundle here (default: stdout)" });

export const schemaNormalizeCommand = defineCommand({
  command: "normalize [bundle]",
  describe: "Rewrite a bundle's schemas so an LLM provider accepts them and reads them the same way",
  builder,
  handler: schemaNormalize,
});

/** `pmcp schema normalize`: the bundle with every input and output schema rewritten for a provider. */
async function schemaNormalize(args: ArgsOf<typeof builder>): Promise<void> {
  const { readSchemaFiles } = await import("../bundle/read.js");
  const { canonicalBundle, toJsonText } = await import("../bundle/serialize.js");
  const { normalizeSchemaWithNotes } = await import("../normalize/normalize.js");
  const { writeFilesAtomically } = await import("@pmcp-codegen/runtime/internal");
  if (args.bundle !== undefined) deprecated(args, "pmcp schema normalize <bundle>", "pmcp schema normalize --schema <bundle>");
  const { schema } = await resolveInputs(args.bundle === undefined ? args.schema : [args.bundle, ...args.schema]);
  const { bundle } = await readSchemaFiles(schema);
  let notes = 0;
  const normalized = canonicalBundle(
    bundle.servers.map((server) => ({
      ...server,
      tools: server.tools.map((tool) => {
        const next = { ...tool };
        for (const key of ["inputSchema", "outputSchema"] as const) {
          if (tool[key] === undefined) continue;
          const result = normalizeSchemaWithNotes(tool[key], { profile: args.profile });
          next[key] = result.schema;
          for (const note of result.notes) {
            notes++;
            warn(args, `server "${server.id}" tool "${tool.name}" at /${key}${note.pointer === "/" ? "" : note.pointer}: ${note.message}`);
          }
        }
        return next;
      }),
    })),
  );
  const text = toJsonText(normalized);
  if (args.output === undefined) {
    process.stdout.write(text);
    return;
  }
  await writeFilesAtomically([{ path: args.output, content: text }]);
  say(args, `Wrote ${args.output} for ${args.profile}${notes ? ` (${count(notes, "note")})` : ""}`);
}
