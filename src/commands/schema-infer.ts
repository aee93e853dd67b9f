import type { Argv } from "yargs";
import { count } from "../count.js";
import { type ArgsOf, defineCommand, type GlobalArgs } from "./shared/command.js";
import { FLAGS, withFlags } from "./shared/flags.js";
import { failIfNotLearned, inferObservations, saveLearnedBundle } from "./shared/infer-observations.js";
import { resolveInputs } from "./shared/inputs.js";
import { printJson, say } from "./shared/output.js";

const builder = (yargs: Argv<GlobalArgs>) => withFlags(yargs, FLAGS["schema infer"]);

export const schemaInferCommand = defineCommand({
  command: "infer",
  describe: "Infer output schemas from observation logs into the bundle's inferred blocks",
  builder,
  handler: schemaInfer,
});

/** `pmcp schema infer`: an `inferred` block per observed tool, written back into the bundle. */
async function schemaInfer(args: ArgsOf<typeof builder>): Promise<void> {
  const { schema } = await resolveInputs(args.schema);
  const inferred = await inferObservations(args, schema, args.observations, args.output);
  await saveLearnedBundle(inferred);
  const { output, result } = inferred;
  if (args.json) printJson({ output, inferred: result.inferred, warnings: result.warnings, failed: result.failed });
  say(args, `Wrote ${output}: ${count(result.inferred.length, "tool")} inferred from ${args.observations}`);
  failIfNotLearned(inferred);
}
