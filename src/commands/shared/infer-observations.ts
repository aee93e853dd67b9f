// Loaded by every `pmcp generate`, which learns only with --observations: what learning needs is
// loaded when it learns, so that a generate without it does not pay for reading and inferring.
import { readFile } from "node:fs/promises";
import { toolLabel } from "../../bundle/quality-changes.js";
import { count } from "../../count.js";
import { PmcpError } from "../../errors.js";
import { writeOutput } from "../../files/write-output.js";
import type { InferResult } from "../../infer/infer-bundle.js";
import { type OutputOptions, say, warn } from "./output.js";

/** What the observation logs taught a bundle, and where the result goes. */
export interface Inferred {
  result: InferResult;
  /** The bundle file written: `-o`, else the one bundle file read. */
  output: string;
  /** The flag that chose `output`, for messages. */
  outputFlag: string;
  /** The bundle as written: canonical JSON text. */
  text: string;
  /** The bundle as read, in the same form: whether another writer changed the file since. */
  readText: string;
}

/**
 * `pmcp schema infer`'s step, which `pmcp generate --observations` takes first: the bundle of
 * `schema` with what the logs in `observations` teach, a line said per tool inferred and a warning
 * per problem. Without `output` the result replaces the bundle read, which must be one bundle file.
 */
export async function inferObservations(
  args: OutputOptions,
  schema: readonly string[],
  observations: string,
  output?: string,
  /** What to do when `schema` is not one bundle file to write the blocks into. */
  remedy = "give -o <bundle> for the result",
): Promise<Inferred> {
  const { readSchemaFiles, singleBundleFile } = await import("../../bundle-files/read.js");
  const { toJsonText } = await import("../../bundle/serialize.js");
  const { inferBundle } = await import("../../learn/observation-logs.js");
  const { cappedNote } = await import("../../infer/learnable-samples.js");
  const { bundle, files } = await readSchemaFiles(schema);
  const file = singleBundleFile(files);
  if (output === undefined && file === undefined) {
    throw new PmcpError("INVALID_ARGUMENT", `${schema.join(", ")} is not one bundle file: ${remedy}`);
  }
  const result = await inferBundle(bundle, observations);
  for (const line of [...result.warnings, ...result.failed]) warn(args, line);
  for (const server of result.bundle.servers) {
    for (const block of server.inferred ?? []) {
      if (!result.inferred.includes(block)) continue;
      say(
        args,
        `inferred ${toolLabel(server.id, block.tool)}: ${count(block.observations, "observation")}, quality ${block.quality} (consistency ${block.consistency})${contentNote(block.content)}${cappedNote(block.capped)}`,
      );
      for (const drift of block.drift ?? []) {
        warn(
          args,
          `server "${server.id}" tool "${block.tool}" breaks its declared output schema at ${drift.path || "/"}: ${drift.message} (${drift.count} of ${count(block.observations, "observation")})`,
        );
      }
    }
  }
  return {
    result,
    // The bundle file itself: `--schema` may name the folder that holds it.
    output: output ?? file!,
    outputFlag: output === undefined ? "--schema" : "-o",
    text: toJsonText(result.bundle),
    readText: toJsonText(bundle),
  };
}

/** Whether the bundle file holds the inferred bundle's bytes already. */
export async function upToDate(inferred: Inferred): Promise<boolean> {
  return (await readFile(inferred.output, "utf8").catch(() => undefined)) === inferred.text;
}

/**
 * Writes the inferred bundle, atomically, unless the file holds these bytes already. Over the bundle
 * read, under its lock and into the file as it is then (writeInferred): blocks another process wrote
 * since it was read (`serve exec --learn`, `dev`) stay.
 */
export async function saveLearnedBundle(inferred: Inferred): Promise<void> {
  if (await upToDate(inferred)) return;
  const { output, outputFlag, text } = inferred;
  if (outputFlag !== "--schema") {
    await writeOutput(outputFlag, [{ path: output, content: text }]);
    return;
  }
  const { withBundleLock } = await import("../../learn/bundle-lock.js");
  const { mergeInferred } = await import("../../learn/write-inferred.js");
  await withBundleLock(output, async () => {
    // Written since it was read: the blocks learned go into the file as it is now.
    if (await changedSinceRead(inferred)) await mergeInferred(output, inferred.result.bundle, outputFlag);
    else await writeOutput(outputFlag, [{ path: output, content: text }]);
  });
}

/** Whether the bundle file holds another bundle than the one inferred from (another writer's blocks). */
async function changedSinceRead(inferred: Inferred): Promise<boolean> {
  const { parseSchemaFile } = await import("../../bundle-files/read.js");
  const { canonicalBundle, toJsonText } = await import("../../bundle/serialize.js");
  const now = await readFile(inferred.output, "utf8").catch(() => undefined);
  if (now === undefined) return true;
  return toJsonText(canonicalBundle(parseSchemaFile(inferred.output, now).bundle.servers)) !== inferred.readText;
}

/** The tools whose blocks were learned again, as `server/tool`: what `--json` lists. */
export function inferredTools(inferred: Inferred): string[] {
  return inferred.result.bundle.servers.flatMap((server) =>
    (server.inferred ?? []).filter((block) => inferred.result.inferred.includes(block)).map((block) => `${server.id}/${block.tool}`),
  );
}

/**
 * As schema discover does: everything that could be learned is written, and the run still fails
 * when a log could not be learned from.
 */
export function failIfNotLearned(inferred: Inferred): void {
  const failed = inferred.result.failed.length;
  if (failed > 0) throw new PmcpError("INVALID_INPUT", `${count(failed, "observation log")} not learned from`);
}

/** Results in prose or images are not learned from; the line says how many there were. */
function contentNote(content: Record<string, number> | undefined): string {
  if (content === undefined) return "";
  return `; results without JSON, not learned from: ${Object.entries(content)
    .map(([kind, results]) => `${kind} ${results}`)
    .join(", ")}`;
}
