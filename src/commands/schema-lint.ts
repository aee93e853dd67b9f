import { readSchemaFiles } from "../bundle-files/read.js";
import { count } from "../count.js";
import { PmcpError } from "../errors.js";
import { type LintFinding, lintSchema } from "../lint/lint.js";
import { describeModelChanges, type ModelChanges, modelChanges } from "../lint/model-changes.js";
import { appliedProfile } from "../normalize/bundle.js";
import type { Profile } from "../providers/facts.js";
import type { CommandArgs } from "./shared/command.js";
import { resolveInputs } from "./shared/inputs.js";
import { printable } from "./shared/output.js";

interface Located extends LintFinding {
  server: string;
  tool: string;
}

/** `pmcp schema lint`: what each provider would reject or misread, per server, tool and pointer; exit 1 on errors. */
export async function schemaLint(args: CommandArgs<"schema lint">): Promise<void> {
  const profiles = args.profile.split(",") as Profile[];
  const { schema } = await resolveInputs(args.schema);
  const { bundle } = await readSchemaFiles(schema);
  const changes = modelChanges(bundle, profiles);
  // Per tool, in bundle order: what its providers reject or misread, then what its model sees changed.
  const tools: { found: Located[]; changes: ModelChanges[] }[] = [];
  for (const server of bundle.servers) {
    for (const tool of server.tools) {
      const found: Located[] = [];
      for (const key of ["inputSchema", "outputSchema"] as const) {
        if (tool[key] === undefined) continue;
        for (const profile of profiles) {
          // A tool normalized already and declared without strict mode is held to the rules it was normalized for.
          for (const finding of lintSchema(tool[key], appliedProfile(tool, profile))) {
            found.push({
              ...finding,
              server: server.id,
              tool: tool.name,
              pointer: `/${key}${finding.pointer === "/" ? "" : finding.pointer}`,
            });
          }
        }
      }
      tools.push({ found, changes: changes[tools.length] as ModelChanges[] });
    }
  }
  const found = tools.flatMap((entry) => entry.found);
  const format = args.json ? "json" : args.format;
  const where = (finding: Located) => `${finding.server}/${finding.tool} ${finding.pointer}`;
  if (format === "json") {
    process.stdout.write(
      `${JSON.stringify({ errors: found.filter((finding) => finding.severity === "error").length, findings: found, changes: changes.flat() }, null, 2)}\n`,
    );
  } else if (format === "github") {
    const data = (text: string) => text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
    const property = (text: string) => data(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
    for (const entry of tools) {
      for (const finding of entry.found) {
        process.stdout.write(
          printable(
            `::${finding.severity} title=${property(`${finding.profile} ${finding.rule}: ${where(finding)}`)}::${data(`${finding.message}${finding.fixable ? " (pmcp schema normalize fixes this)" : ""}`)}\n`,
          ),
        );
      }
      for (const change of entry.changes) {
        process.stdout.write(
          printable(
            `::notice title=${property(`${change.profile} model sees: ${change.server}/${change.tool}`)}::${data(describeModelChanges(change))}\n`,
          ),
        );
      }
    }
  } else if (!args.quiet) {
    for (const entry of tools) {
      for (const finding of entry.found) {
        process.stdout.write(
          printable(
            `${finding.severity.toUpperCase().padEnd(7)} ${finding.profile.padEnd(16)} ${where(finding)}: ${finding.message} [${finding.rule}]${finding.fixable ? " (normalize fixes this)" : ""}\n`,
          ),
        );
      }
      for (const change of entry.changes) {
        process.stdout.write(
          printable(
            `${"NOTICE".padEnd(7)} ${change.profile.padEnd(16)} ${change.server}/${change.tool}: the model sees: ${describeModelChanges(change)}\n`,
          ),
        );
      }
    }
    if (found.length === 0) process.stdout.write(`no findings for ${profiles.join(", ")}\n`);
  }
  const errors = found.filter((finding) => finding.severity === "error").length;
  if (errors > 0) throw new PmcpError("CHECK_FAILED", `${count(errors, "error")} for ${profiles.join(", ")}`);
}
