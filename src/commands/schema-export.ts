import { access, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { ServerSource } from "@pmcp-codegen/runtime/internal";
import type { FileToWrite } from "@pmcp-codegen/runtime/internal/files";
import { jsonEquals } from "@pmcp-codegen/runtime/internal/json";
import { DEFAULT_BUNDLE_PATH } from "../bundle/defaults.js";
import { toFoundationFile } from "../bundle/foundation.js";
import { canonicalBundle, toJsonText } from "../bundle/serialize.js";
import { duplicateIdProblem } from "../bundle/server-naming.js";
import type { Bundle, BundleServer } from "../bundle/types.js";
import { loadPmcpConfig } from "../config/pmcp-config.js";
import { count } from "../count.js";
import { diffBundles } from "../diff/bundle-diff.js";
import { formatText } from "../diff/format.js";
import { PmcpError } from "../errors.js";
import { assembleBundle, serversIn, serversOnDisk } from "../export/assemble.js";
import { exportServers, type ServerOutcome, strayOutputWarnings } from "../export/export-servers.js";
import { liveProgress, plainProgress, silentProgress } from "../export/progress.js";
import { writeOutput } from "../files/write-output.js";
import type { CommandArgs } from "./shared/command.js";
import { DEFAULT_FOUNDATION_DIR } from "./shared/flags.js";
import { printJson, say, warn } from "./shared/output.js";
import { flagRow, settingOf } from "./shared/settings.js";
import { hasSourceFlags, resolveSources } from "./shared/source-flags.js";

type Args = CommandArgs<"schema export">;

/** `pmcp schema export`: list every tool of every server and write (or `--check`) the bundle. */
export async function schemaExport(args: Args): Promise<void> {
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
  const target =
    args.format === "bundle"
      ? settingOf(flagRow("schema export", "output"), args.output, project, DEFAULT_BUNDLE_PATH).value
      : (args.output ?? DEFAULT_FOUNDATION_DIR);
  if (failures.length > 0 && (!args.allowPartial || servers.length === 0)) {
    const existed = await access(target).then(
      () => true,
      () => false,
    );
    throw new PmcpError("SERVER_FAILED", [...failures, existed ? `${target} left unchanged` : `${target} not written`].join("\n"));
  }

  const previous = args.format === "bundle" ? await serversOnDisk(target) : undefined;
  const assembled = assembleBundle(servers, previous);
  const { bundle } = assembled;
  const warnings = [...strayOutputWarnings(outcomes), ...assembled.warnings];
  for (const line of warnings) warn(args, line);
  for (const line of failures) warn(args, `skipped ${line}`);

  const files: FileToWrite[] =
    args.format === "bundle"
      ? [{ path: target, content: toJsonText(bundle) }]
      : bundle.servers.map((server) => ({ path: join(target, `${server.id}.json`), content: toJsonText(toFoundationFile(server)) }));
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

  const fromConfig = args.format === "bundle" && project?.config.bundle !== undefined;
  await writeOutput(args.output !== undefined ? "-o" : fromConfig ? "pmcp.config bundle" : "output", files);
  if (args.json) printJson({ ...summary, written: files.map((file) => file.path) });
  const tools = servers.reduce((sum, server) => sum + server.tools.length, 0);
  const extra = [
    warnings.length ? count(warnings.length, "warning") : "",
    failures.length ? `${count(failures.length, "server")} skipped` : "",
  ].filter(Boolean);
  say(args, `Wrote ${target}: ${count(servers.length, "server")}, ${count(tools, "tool")}${extra.length ? ` (${extra.join(", ")})` : ""}`);
}

async function chooseProgress(args: Args, sources: readonly ServerSource[]) {
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
  const repeated = duplicateIdProblem(
    outcomes.flatMap((outcome) => (outcome.ok ? [{ id: outcome.server.id, label: outcome.source.label }] : [])),
  );
  if (repeated !== undefined) throw new PmcpError("INVALID_ARGUMENT", repeated);
}

/** How a file's bytes differ from what export would write, when no server changed: its top-level keys, else only its form. */
function bytesDrift(existing: string | undefined, content: string): string {
  if (existing === undefined) return "missing";
  const parse = (text: string): unknown => {
    try {
      return JSON.parse(text.replace(/^\uFEFF/, ""));
    } catch {
      return undefined;
    }
  };
  const [before, after] = [parse(existing), parse(content)];
  if (before === undefined) return "not JSON";
  if (jsonEquals(before, after)) return "same content, different bytes (formatting or key order)";
  const record = (value: unknown) => (typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {});
  const [old, now] = [record(before), record(after)];
  const keys = [...new Set([...Object.keys(now), ...Object.keys(old)])].filter((key) => !jsonEquals(old[key], now[key]));
  return `${keys.length > 0 ? keys.join(", ") : "content"} changed`;
}

/** The drift gate: exit 0 when every file on disk already has these bytes, else 1 with what changed. */
async function checkFiles(args: Args, files: readonly FileToWrite[], bundle: Bundle, summary: object): Promise<void> {
  const stale: { file: FileToWrite; existing: string | undefined }[] = [];
  const previous: BundleServer[] = [];
  for (const file of files) {
    const existing = await readFile(file.path, "utf8").catch(() => undefined);
    if (existing !== file.content) stale.push({ file, existing });
    if (existing !== undefined) previous.push(...serversIn(file.path, existing));
  }
  // The same judgement as `pmcp schema diff`, so drift says what it breaks.
  const changes =
    stale.length === 0
      ? []
      : formatText(diffBundles(canonicalBundle(previous), bundle))
          .trimEnd()
          .split("\n");
  // No server changed: what differs is said per file.
  if (stale.length > 0 && changes[0] === "no changes")
    changes.splice(0, 1, ...stale.map(({ file, existing }) => `${file.path}: ${bytesDrift(existing, file.content)}`));
  const stalePaths = stale.map(({ file }) => file.path);
  if (args.json) printJson({ ...summary, upToDate: stale.length === 0, stale: stalePaths, changes });
  if (stale.length === 0) {
    say(args, `${files.map((file) => file.path).join(", ")} up to date`);
    return;
  }
  for (const line of changes) say(args, line);
  throw new PmcpError(
    "OUT_OF_DATE",
    `${stalePaths.join(", ")} out of date (${count(changes.length, "change")}); run pmcp schema export to update`,
  );
}
