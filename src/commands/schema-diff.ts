import { readSchemaFiles } from "../bundle/read.js";
import { diffBundles } from "../diff/bundle-diff.js";
import { formatGithub, formatJson, formatJunit, formatText, type DiffFormat } from "../diff/format.js";
import { RuntimeFailure } from "../errors.js";
import { count, type OutputOptions } from "../cli/output.js";

export interface SchemaDiffArgs extends OutputOptions {
  old: string;
  new: string;
  failOn: "breaking" | "dangerous";
  format: DiffFormat;
}

/** `pmcp schema diff`: every change between two bundles with its level; exit 1 at or above --fail-on. */
export async function schemaDiff(args: SchemaDiffArgs): Promise<void> {
  const [before, after] = await Promise.all([readSchemaFiles([args.old]), readSchemaFiles([args.new])]);
  const changes = diffBundles(before.bundle, after.bundle);
  const format = args.json ? "json" : args.format;
  const text =
    format === "json" ? formatJson(changes) : format === "github" ? formatGithub(changes) : format === "junit" ? formatJunit(changes, args.failOn) : formatText(changes);
  if (!args.quiet || format !== "text") process.stdout.write(text);
  const failing = changes.filter((change) => change.level === "breaking" || (args.failOn === "dangerous" && change.level === "dangerous"));
  if (failing.length > 0) throw new RuntimeFailure(`${count(failing.length, `${args.failOn === "dangerous" ? "breaking or dangerous" : "breaking"} change`)}`);
}
