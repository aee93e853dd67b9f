import { readFile } from "node:fs/promises";
import { join, relative, resolve } from "node:path";
import { RuntimeFailure, UsageError } from "../errors.js";
import { loadPmcpConfig } from "../config/pmcp-config.js";
import { hasSourceFlags, resolveSources, type SourceFlags } from "../endpoints/source-flags.js";
import type { ServerSource } from "@pmcp-codegen/runtime/internal";
import { exportServers, type ServerOutcome } from "../export/export-servers.js";
import { liveProgress, plainProgress, silentProgress, type ProgressView } from "../export/progress.js";
import { diffBundles } from "../diff/bundle-diff.js";
import { formatText } from "../diff/format.js";
import { toFoundationFile } from "../bundle/foundation.js";
import { parseSchemaFile } from "../bundle/read.js";
import { findSchemaWarnings, formatWarning } from "../bundle/schema-warnings.js";
import { canonicalBundle, toJsonText } from "../bundle/serialize.js";
import { carryInferred } from "../bundle/carry-inferred.js";
import type { Bundle, BundleServer } from "../bundle/types.js";
import { DEFAULT_BUNDLE_PATH } from "../bundle/defaults.js";
import { writeFilesAtomically, type FileToWrite } from "@pmcp-codegen/runtime/internal";
import { count, printJson, say, warn, type OutputOptions } from "../cli/output.js";

export type ExportFormat = "bundle" | "pmcp-foundation";

export interface SchemaExportArgs extends OutputOptions, SourceFlags {
  timeout: number;
  concurrency: number | undefined;
  output: string | undefined;
  format: ExportFormat;
  check: boolean;
  allowPartial: boolean;
}

const DEFAULT_FOUNDATION_DIR = "schemas";

/** `pmcp schema export`: list every tool of every server and write (or `--check`) the bundle. */
export async function schemaExport(args: SchemaExportArgs): Promise<void> {
  // pmcp.config gives the servers when no flag does, and the bundle path when -o does not.
  const project = hasSourceFlags(args) && args.output !== undefined ? undefined : await loadPmcpConfig();
  const sources = await resolveSources(args, project, "export");
  const progress = await chooseProgress(args, sources);
  const outcomes = await exportServers(sources, {
    timeoutMs: args.timeout,
    concurrency: args.concurrency ?? sources.length,
    onProgress: (index, state) => progress.update(index, state),
  });
  await progress.finish();

  const servers = outcomes.flatMap((outcome) => (outcome.ok ? [outcome.server] : []));
  const failures = outcomes.flatMap((outcome) => (outcome.ok ? [] : [`${serverLabel(outcome.source)}: ${outcome.message}`]));
  rejectDuplicateIds(outcomes);
  const configured = project?.config.bundle === undefined ? undefined : relative(process.cwd(), resolve(project.dir, project.config.bundle));
  const target = args.output ?? (args.format === "bundle" ? (configured ?? DEFAULT_BUNDLE_PATH) : DEFAULT_FOUNDATION_DIR);
  if (failures.length > 0 && (!args.allowPartial || servers.length === 0)) {
    throw new RuntimeFailure([...failures, `${target} left unchanged`].join("\n"));
  }

  const previous = args.format === "bundle" ? await readFile(target, "utf8").then((text) => serversIn(target, text), () => undefined) : undefined;
  const bundle = carryInferred(canonicalBundle(servers), previous === undefined ? undefined : canonicalBundle(previous));
  const warnings = [...bundle.servers.flatMap(findSchemaWarnings).map(formatWarning), ...bundle.servers.flatMap(duplicateToolNames)];
  for (const line of warnings) warn(args, line);
  for (const line of failures) warn(args, `skipped ${line}`);

  const files = renderFiles(bundle, args.format, target);
  const summary = {
    output: target,
    format: args.format,
    servers: outcomes.flatMap((outcome) =>
      outcome.ok ? [{ id: outcome.server.id, transport: outcome.transport, tools: outcome.server.tools.length }] : [],
    ),
    failures,
    warnings,
  };
  if (args.check) return checkFiles(args, files, bundle, summary);

  await writeFilesAtomically(files);
  if (args.json) printJson({ ...summary, written: files.map((file) => file.path) });
  const tools = servers.reduce((sum, server) => sum + server.tools.length, 0);
  const extra = [warnings.length ? count(warnings.length, "warning") : "", failures.length ? `${count(failures.length, "server")} skipped` : ""].filter(Boolean);
  say(args, `Wrote ${target}: ${count(servers.length, "server")}, ${count(tools, "tool")}${extra.length ? ` (${extra.join(", ")})` : ""}`);
}

async function chooseProgress(args: SchemaExportArgs, sources: readonly ServerSource[]): Promise<ProgressView> {
  // --json keeps both streams for machines: the summary on stdout, only warnings and errors on stderr.
  if (args.quiet || args.json) return silentProgress();
  if (process.stderr.isTTY) return liveProgress(sources);
  return plainProgress(sources);
}

function serverLabel(source: ServerSource): string {
  return `server "${source.id ?? source.label}"`;
}

/** Ids derived from `serverInfo.name` can only collide once the servers have answered. */
function rejectDuplicateIds(outcomes: readonly ServerOutcome[]): void {
  const seen = new Map<string, ServerSource>();
  for (const outcome of outcomes) {
    if (!outcome.ok) continue;
    const other = seen.get(outcome.server.id);
    if (other !== undefined) {
      throw new UsageError(
        `two servers have the id "${outcome.server.id}" (${other.label} and ${outcome.source.label}); name them with --id or a --config file`,
      );
    }
    seen.set(outcome.server.id, outcome.source);
  }
}

function duplicateToolNames(server: BundleServer): string[] {
  const names = server.tools.map((tool) => tool.name);
  const repeated = [...new Set(names.filter((name, index) => names.indexOf(name) !== index))];
  return repeated.map((name) => `server "${server.id}" lists tool "${name}" more than once`);
}

function renderFiles(bundle: Bundle, format: ExportFormat, target: string): FileToWrite[] {
  if (format === "bundle") return [{ path: target, content: toJsonText(bundle) }];
  return bundle.servers.map((server) => ({ path: join(target, `${server.id}.json`), content: toJsonText(toFoundationFile(server)) }));
}

/** The drift gate: exit 0 when every file on disk already has these bytes, else 1 with what changed. */
async function checkFiles(args: SchemaExportArgs, files: readonly FileToWrite[], bundle: Bundle, summary: object): Promise<void> {
  const stale: string[] = [];
  const previous: BundleServer[] = [];
  for (const file of files) {
    const existing = await readFile(file.path, "utf8").catch(() => undefined);
    if (existing !== file.content) stale.push(file.path);
    if (existing !== undefined) previous.push(...serversIn(file.path, existing));
  }
  // The same judgement as `pmcp schema diff`, so drift says what it breaks.
  const changes = stale.length === 0 ? [] : formatText(diffBundles(canonicalBundle(previous), bundle)).trimEnd().split("\n");
  if (stale.length > 0 && changes[0] === "no changes") changes.splice(0, 1, "same tools, different bytes (formatting or key order)");
  if (args.json) printJson({ ...summary, upToDate: stale.length === 0, stale, changes });
  if (stale.length === 0) {
    say(args, `${files.map((file) => file.path).join(", ")} up to date`);
    return;
  }
  for (const line of changes) say(args, line);
  throw new RuntimeFailure(`${stale.join(", ")} out of date (${count(changes.length, "change")}); run pmcp schema export to update`);
}

/** The servers of an existing file, or none when it cannot be read: it is then reported as changed. */
function serversIn(path: string, text: string): BundleServer[] {
  try {
    return parseSchemaFile(path, text).bundle.servers;
  } catch {
    return [];
  }
}
