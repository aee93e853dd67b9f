import { readFile } from "node:fs/promises";
import { loadPmcpConfig } from "../config/pmcp-config.js";
import { discoverServer, type DiscoverOutcome } from "../discover/discover.js";
import { SamplesFileSchema, unmatchedSamples, type SamplesFile } from "../discover/plan-calls.js";
import { hasSourceFlags, resolveSources, type SourceFlags } from "../endpoints/source-flags.js";
import { RuntimeFailure, UsageError, errorMessage } from "../errors.js";
import { ObservationRecorder } from "@pmcp-codegen/runtime";
import { count, printJson, say, warn, type OutputOptions } from "../cli/output.js";

export interface SchemaDiscoverArgs extends OutputOptions, SourceFlags {
  samples: string | undefined;
  observations: string;
  allowTool: string[];
  maxSamples: number | undefined;
  redact: boolean;
  timeout: number;
}

/** `pmcp schema discover`: call the tools that are safe to call and log what they return. */
export async function schemaDiscover(args: SchemaDiscoverArgs): Promise<void> {
  const samples = args.samples === undefined ? {} : await readSamples(args.samples);
  const project = hasSourceFlags(args) ? undefined : await loadPmcpConfig();
  const sources = await resolveSources(args, project, "discover");
  const problems: string[] = [];
  const recorder = new ObservationRecorder({
    dir: args.observations,
    ...(args.maxSamples === undefined ? {} : { maxSamples: args.maxSamples }),
    redact: args.redact,
    onError: (error) => problems.push(error.message),
  });
  const allowed = new Set(args.allowTool);
  const outcomes = await Promise.all(sources.map((source) => discoverServer(source, { samples, allowed, recorder, timeoutMs: args.timeout })));
  await recorder.flush();

  const lines = outcomes.flatMap(describe);
  for (const line of lines) say(args, line);
  const reached = outcomes.flatMap((outcome) => (outcome.ok ? [{ serverId: outcome.serverId, tools: outcome.listed }] : []));
  for (const key of unmatchedSamples(samples, reached)) warn(args, `samples for "${key}" match no listed tool`);
  const failed = outcomes.flatMap((outcome) => (outcome.ok ? [] : [`server "${outcome.source.id ?? outcome.source.label}": ${outcome.message}`]));
  const recorded = outcomes.reduce((sum, outcome) => sum + (outcome.ok ? outcome.tools.reduce((inner, tool) => inner + tool.recorded, 0) : 0), 0);
  if (args.json) {
    printJson({
      observations: args.observations,
      servers: outcomes.map((outcome) => (outcome.ok ? { id: outcome.serverId, tools: outcome.tools } : { label: outcome.source.label, error: outcome.message })),
    });
  }
  if (failed.length + problems.length > 0) throw new RuntimeFailure([...failed, ...problems].join("\n"));
  say(args, `Recorded ${count(recorded, "observation")} in ${args.observations}`);
}

function describe(outcome: DiscoverOutcome): string[] {
  if (!outcome.ok) return [];
  return outcome.tools.map((tool) => {
    const name = `${outcome.serverId}/${tool.tool}`;
    if (tool.skipped !== undefined) return `skipped ${name}: ${tool.skipped}`;
    const failed = tool.failures.length > 0 ? `, ${tool.failures.length} failed (${tool.failures[0]})` : "";
    return `called ${name}: ${count(tool.calls, "call")}, ${tool.recorded} recorded${failed}`;
  });
}

async function readSamples(path: string): Promise<SamplesFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new UsageError(`--samples ${path}: ${(error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : errorMessage(error)}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--samples ${path}: not JSON (${errorMessage(error)})`);
  }
  const parsed = SamplesFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`--samples ${path}: ${issue?.path.map(String).join(".") || "file"}: ${issue?.message} (expected {"tool": [{...arguments}], "server/tool": [...]})`);
  }
  return parsed.data;
}
