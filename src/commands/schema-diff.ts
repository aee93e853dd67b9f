import type { Argv } from "yargs";
import { count } from "../count.js";
import { PmcpError } from "../errors.js";
import { type ArgsOf, defineCommand, type GlobalArgs } from "./shared/command.js";
import { FLAGS, withFlags } from "./shared/flags.js";
import { resolveInputs } from "./shared/inputs.js";
import { printable } from "./shared/output.js";

const builder = (yargs: Argv<GlobalArgs>) =>
  withFlags(yargs, FLAGS["schema diff"])
    .positional("old", { type: "string", demandOption: true, describe: "The bundle (or PMCP files) before" })
    .example("$0 schema diff main.json --format github", "Annotate a pull request with what changed since main.json");

export const schemaDiffCommand = defineCommand({
  command: "diff <old>",
  describe: "Compare a bundle with an older one; each change is breaking, dangerous or safe for callers",
  builder,
  handler: schemaDiff,
});

/** `pmcp schema diff`: every change between two bundles with its level; exit 1 at or above --fail-on. */
async function schemaDiff(args: ArgsOf<typeof builder>): Promise<void> {
  const { readSchemaFiles } = await import("../bundle-files/read.js");
  const { diffBundles } = await import("../diff/bundle-diff.js");
  const { formatGithub, formatJson, formatJunit, formatText } = await import("../diff/format.js");
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
