import { readSchemaFiles } from "../bundle/read.js";
import { toJsonText } from "../bundle/serialize.js";
import { configuredBundlePath } from "../config/pmcp-config.js";
import { UsageError } from "../errors.js";
import { writeFilesAtomically } from "@pmcp-codegen/runtime/internal";
import { inferBundle } from "../infer/infer-bundle.js";
import { count, printJson, say, warn, type OutputOptions } from "../cli/output.js";

export interface SchemaInferArgs extends OutputOptions {
  schema: string | undefined;
  observations: string;
  output: string | undefined;
}

/** `pmcp schema infer`: an `inferred` block per observed tool, written back into the bundle. */
export async function schemaInfer(args: SchemaInferArgs): Promise<void> {
  const input = args.schema ?? (await configuredBundlePath());
  const output = args.output ?? input;
  const { bundle, files } = await readSchemaFiles([input]);
  if (args.output === undefined && (files.length !== 1 || files[0]?.format !== "bundle")) {
    throw new UsageError(`${input} is not one bundle file: give -o <bundle> for the result`);
  }
  const result = await inferBundle(bundle, args.observations);
  for (const line of result.warnings) warn(args, line);
  for (const server of result.bundle.servers) {
    for (const block of server.inferred ?? []) {
      if (!result.inferred.includes(block)) continue;
      say(args, `inferred ${server.id}/${block.tool}: ${count(block.observations, "observation")}, quality ${block.quality} (consistency ${block.consistency})`);
      for (const drift of block.drift ?? []) {
        warn(args, `server "${server.id}" tool "${block.tool}" breaks its declared output schema at ${drift.path || "/"}: ${drift.message} (${drift.count} of ${block.observations} observations)`);
      }
    }
  }
  await writeFilesAtomically([{ path: output, content: toJsonText(result.bundle) }]);
  if (args.json) printJson({ output, inferred: result.inferred, warnings: result.warnings });
  say(args, `Wrote ${output}: ${count(result.inferred.length, "tool")} inferred from ${args.observations}`);
}
