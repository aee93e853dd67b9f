import { canonicalBundle, toJsonText } from "../bundle/serialize.js";
import { readSchemaFiles } from "../bundle-files/read.js";
import { count } from "../count.js";
import { PmcpError } from "../errors.js";
import { writeOutput } from "../files/write-output.js";
import { normalizeBundle, normalizeSummary, refuseNormalized, summarizeNotes } from "../normalize/bundle.js";
import type { CommandArgs } from "./shared/command.js";
import { resolveInputs } from "./shared/inputs.js";
import { say, warn } from "./shared/output.js";

/** `pmcp schema normalize`: the bundle with every input and output schema rewritten for a provider; exit 1 when a tool could not be. */
export async function schemaNormalize(args: CommandArgs<"schema normalize">): Promise<void> {
  const { schema } = await resolveInputs(args.schema);
  const { bundle } = await readSchemaFiles(schema);
  refuseNormalized(bundle, schema.join(", "), "normalize the bundle as exported");
  const { servers, outcomes } = normalizeBundle(bundle, args.profile);
  // One line per tool: a server with recursive definitions can produce thousands of notes per tool.
  for (const { server, tool, notes, failure } of outcomes) {
    const where = `server "${server}" tool "${tool}"`;
    // A name for the model changes no meaning: it is in the bundle and in --json, not a warning.
    const changes = notes.filter((note) => note.kind !== "renamed");
    if (failure !== undefined) warn(args, `${where}: not normalized, left as exported: ${failure}`);
    else if (changes.length > 0) warn(args, `${where}: ${summarizeNotes(changes)}`);
  }
  const text = toJsonText(canonicalBundle(servers));
  if (args.output !== undefined) {
    await writeOutput("-o", [{ path: args.output, content: text }]);
    const notes = outcomes.reduce((sum, outcome) => sum + outcome.notes.length, 0);
    say(args, `Wrote ${args.output} for ${args.profile}${notes ? ` (${count(notes, "note")})` : ""}`);
  }
  if (args.json) process.stdout.write(`${JSON.stringify(normalizeSummary(args.profile, args.output, outcomes), null, 2)}\n`);
  else if (args.output === undefined) process.stdout.write(text);
  const failed = outcomes.filter((outcome) => outcome.failure !== undefined).length;
  if (failed > 0) throw new PmcpError("CHECK_FAILED", `${count(failed, "tool")} could not be normalized for ${args.profile}`);
}
