import { count } from "../count.js";
import type { CommandArgs } from "./shared/command.js";
import { failIfNotLearned, inferObservations, saveLearnedBundle } from "./shared/infer-observations.js";
import { resolveInputs } from "./shared/inputs.js";
import { printJson, say } from "./shared/output.js";

/** `pmcp schema infer`: an `inferred` block per observed tool, written back into the bundle. */
export async function schemaInfer(args: CommandArgs<"schema infer">): Promise<void> {
  const { schema } = await resolveInputs(args.schema);
  const inferred = await inferObservations(args, schema, args.observations, args.output);
  await saveLearnedBundle(inferred);
  const { output, result } = inferred;
  if (args.json) printJson({ output, inferred: result.inferred, warnings: result.warnings, failed: result.failed });
  say(args, `Wrote ${output}: ${count(result.inferred.length, "tool")} inferred from ${args.observations}`);
  failIfNotLearned(inferred);
}
