import type { Argv } from "yargs";
import { count } from "../count.js";
import { PmcpError } from "../errors.js";
import { writeOutput } from "../files/write-output.js";
import { type ArgsOf, defineCommand, type GlobalArgs } from "./shared/command.js";
import { resolveInputs, schemaOption } from "./shared/inputs.js";
import { printJson, say, warn } from "./shared/output.js";

const builder = (yargs: Argv<GlobalArgs>) =>
  schemaOption(yargs)
    .option("observations", {
      type: "string",
      demandOption: true,
      describe: "Folder of observation logs (CompositionClient observe, or schema discover)",
    })
    .option("output", { alias: "o", type: "string", describe: "Where to write the bundle (default: over --schema)" });

export const schemaInferCommand = defineCommand({
  command: "infer",
  describe: "Infer output schemas from observation logs into the bundle's inferred blocks",
  builder,
  handler: schemaInfer,
});

/** `pmcp schema infer`: an `inferred` block per observed tool, written back into the bundle. */
async function schemaInfer(args: ArgsOf<typeof builder>): Promise<void> {
  const { readSchemaFiles } = await import("../bundle/read.js");
  const { toJsonText } = await import("../bundle/serialize.js");
  const { inferBundle } = await import("../infer/infer-bundle.js");
  const { cappedNote } = await import("../infer/learnable-samples.js");
  const { schema } = await resolveInputs(args.schema);
  const { bundle, files } = await readSchemaFiles(schema);
  const output = args.output ?? schema[0]!;
  if (args.output === undefined && (files.length !== 1 || files[0]?.format !== "bundle")) {
    throw new PmcpError("INVALID_ARGUMENT", `${schema.join(", ")} is not one bundle file: give -o <bundle> for the result`);
  }
  const result = await inferBundle(bundle, args.observations);
  for (const line of [...result.warnings, ...result.failed]) warn(args, line);
  for (const server of result.bundle.servers) {
    for (const block of server.inferred ?? []) {
      if (!result.inferred.includes(block)) continue;
      say(
        args,
        `inferred ${server.id}/${block.tool}: ${count(block.observations, "observation")}, quality ${block.quality} (consistency ${block.consistency})${contentNote(block.content)}${cappedNote(block.capped)}`,
      );
      for (const drift of block.drift ?? []) {
        warn(
          args,
          `server "${server.id}" tool "${block.tool}" breaks its declared output schema at ${drift.path || "/"}: ${drift.message} (${drift.count} of ${count(block.observations, "observation")})`,
        );
      }
    }
  }
  await writeOutput(args.output === undefined ? "--schema" : "-o", [{ path: output, content: toJsonText(result.bundle) }]);
  if (args.json) printJson({ output, inferred: result.inferred, warnings: result.warnings, failed: result.failed });
  say(args, `Wrote ${output}: ${count(result.inferred.length, "tool")} inferred from ${args.observations}`);
  // As schema discover does: everything that could be learned is written, and the run still fails.
  if (result.failed.length > 0) throw new PmcpError("INVALID_INPUT", `${count(result.failed.length, "observation log")} not learned from`);
}

/** Results in prose or images are not learned from; the line says how many there were. */
function contentNote(content: Record<string, number> | undefined): string {
  if (content === undefined) return "";
  return `; results without JSON, not learned from: ${Object.entries(content)
    .map(([kind, results]) => `${kind} ${results}`)
    .join(", ")}`;
}
