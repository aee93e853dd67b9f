import { readSchemaFiles } from "../bundle/read.js";
import { DEFAULT_BUNDLE_PATH } from "../bundle/defaults.js";
import { lintSchema, type LintFinding } from "../lint/lint.js";
import type { Profile } from "../normalize/normalize.js";
import { RuntimeFailure } from "../errors.js";
import { count, type OutputOptions } from "../cli/output.js";

export interface SchemaLintArgs extends OutputOptions {
  profiles: Profile[];
  bundle: string | undefined;
  format: "text" | "json" | "github";
}

interface Located extends LintFinding {
  server: string;
  tool: string;
}

/** `pmcp schema lint`: what each provider would reject or misread, per server, tool and pointer; exit 1 on errors. */
export async function schemaLint(args: SchemaLintArgs): Promise<void> {
  const { bundle } = await readSchemaFiles([args.bundle ?? DEFAULT_BUNDLE_PATH]);
  const found: Located[] = [];
  for (const server of bundle.servers) {
    for (const tool of server.tools) {
      for (const key of ["inputSchema", "outputSchema"] as const) {
        if (tool[key] === undefined) continue;
        for (const profile of args.profiles) {
          for (const finding of lintSchema(tool[key], profile)) {
            found.push({ ...finding, server: server.id, tool: tool.name, pointer: `/${key}${finding.pointer === "/" ? "" : finding.pointer}` });
          }
        }
      }
    }
  }
  const format = args.json ? "json" : args.format;
  const where = (finding: Located) => `${finding.server}/${finding.tool} ${finding.pointer}`;
  if (format === "json") {
    process.stdout.write(`${JSON.stringify({ errors: found.filter((finding) => finding.severity === "error").length, findings: found }, null, 2)}\n`);
  } else if (format === "github") {
    const data = (text: string) => text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
    const property = (text: string) => data(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
    for (const finding of found) {
      process.stdout.write(`::${finding.severity} title=${property(`${finding.profile} ${finding.rule}: ${where(finding)}`)}::${data(`${finding.message}${finding.fixable ? " (pmcp schema normalize fixes this)" : ""}`)}\n`);
    }
  } else if (!args.quiet) {
    for (const finding of found) {
      process.stdout.write(`${finding.severity.toUpperCase().padEnd(7)} ${finding.profile.padEnd(16)} ${where(finding)}: ${finding.message} [${finding.rule}]${finding.fixable ? " (normalize fixes this)" : ""}\n`);
    }
    if (found.length === 0) process.stdout.write(`no findings for ${args.profiles.join(", ")}\n`);
  }
  const errors = found.filter((finding) => finding.severity === "error").length;
  if (errors > 0) throw new RuntimeFailure(`${count(errors, "error")} for ${args.profiles.join(", ")}`);
}
