import { readSchemaFiles } from "../bundle-files/read.js";
import { count } from "../count.js";
import { diffBundles } from "../diff/bundle-diff.js";
import { formatGithub, formatJson, formatJunit, formatText } from "../diff/format.js";
import { PmcpError } from "../errors.js";
import type { CommandArgs } from "./shared/command.js";
import { resolveInputs } from "./shared/inputs.js";
import { printable } from "./shared/output.js";

/** `pmcp schema diff`: every change between two bundles with its level; exit 1 at or above --fail-on. */
export async function schemaDiff(args: CommandArgs<"schema diff">): Promise<void> {
  const { schema } = await resolveInputs(args.schema);
  const [before, after] = await Promise.all([readSchemaFiles([args.old]), readSchemaFiles(schema)]);
  const changes = diffBundles(before.bundle, after.bundle);
  const format = args.json ? "json" : args.format;
  const text =
    format === "json"
      ? formatJson(changes)
      : format === "github"
        ? formatGithub(changes)
        : format === "junit"
          ? formatJunit(changes, args.failOn)
          : formatText(changes);
  // Text and annotations are read on a terminal or in a log; JSON and JUnit are files to parse, kept as they are.
  if (!args.quiet || format !== "text") process.stdout.write(format === "text" || format === "github" ? printable(text) : text);
  const failing = changes.filter((change) => change.level === "breaking" || (args.failOn === "dangerous" && change.level === "dangerous"));
  if (failing.length > 0)
    throw new PmcpError(
      "CHECK_FAILED",
      count(failing.length, `${args.failOn === "dangerous" ? "breaking or dangerous" : "breaking"} change`),
    );
}
