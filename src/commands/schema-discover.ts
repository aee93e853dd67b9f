import { ObservationRecorder } from "@pmcp-codegen/runtime";
import { strayOutputWarning } from "@pmcp-codegen/runtime/internal/servers";
import { loadPmcpConfig } from "../config/pmcp-config.js";
import { count } from "../count.js";
import { type DiscoverOutcome, discoverServer } from "../discover/discover.js";
import { type SamplesFile, SamplesFileSchema, unmatchedSamples } from "../discover/plan-calls.js";
import { PmcpError } from "../errors.js";
import { readJsonFile } from "../files/read-json.js";
import type { CommandArgs } from "./shared/command.js";
import { printJson, say, warn } from "./shared/output.js";
import { hasSourceFlags, resolveSources } from "./shared/source-flags.js";

type Args = CommandArgs<"schema discover">;

/** `pmcp schema discover`: call the tools that are safe to call and log what they return. */
export async function schemaDiscover(args: Args): Promise<void> {
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
  const outcomes = await Promise.all(
    sources.map((source) => discoverServer(source, { samples, allowed, recorder, timeoutMs: args.timeout })),
  );
  await recorder.flush();

  for (const line of outcomes.flatMap(describe)) say(args, line);
  for (const outcome of outcomes)
    if (outcome.ok && outcome.strayOutput !== undefined) warn(args, strayOutputWarning(outcome.serverId, outcome.strayOutput));
  const reached = outcomes.flatMap((outcome) => (outcome.ok ? [{ serverId: outcome.serverId, tools: outcome.listed }] : []));
  for (const key of unmatchedSamples(samples, reached)) warn(args, `samples for "${key}" match no listed tool`);
  const failed = outcomes.flatMap((outcome) =>
    outcome.ok ? [] : [`server "${outcome.source.id ?? outcome.source.label}": ${outcome.message}`],
  );
  const recorded = outcomes.reduce(
    (sum, outcome) => sum + (outcome.ok ? outcome.tools.reduce((inner, tool) => inner + tool.recorded, 0) : 0),
    0,
  );
  if (args.json) {
    printJson({
      observations: args.observations,
      servers: outcomes.map((outcome) =>
        outcome.ok ? { id: outcome.serverId, tools: outcome.tools } : { label: outcome.source.label, error: outcome.message },
      ),
    });
  }
  if (failed.length + problems.length > 0) throw new PmcpError("SERVER_FAILED", [...failed, ...problems].join("\n"));
  say(args, `Recorded ${count(recorded, "observation")} in ${args.observations}`);
  const failedCalls = outcomes.flatMap((outcome) =>
    outcome.ok ? outcome.tools.flatMap((tool) => tool.failures.map(() => `${outcome.serverId}/${tool.tool}`)) : [],
  );
  if (failedCalls.length > 0)
    throw new PmcpError("SERVER_FAILED", `${count(failedCalls.length, "call")} failed: ${[...new Set(failedCalls)].join(", ")}`);
}

function describe(outcome: DiscoverOutcome): string[] {
  if (!outcome.ok) return [];
  return outcome.tools.map((tool) => {
    const name = `${outcome.serverId}/${tool.tool}`;
    if (tool.skipped !== undefined) return `skipped ${name}: ${tool.skipped}`;
    const failed = tool.failures.length > 0 ? `, ${tool.failures.length} failed (${tool.failures[0]})` : "";
    const prose = tool.withoutJson > 0 ? ` (${tool.withoutJson} without JSON)` : "";
    return `called ${name}: ${count(tool.calls, "call")}, ${tool.recorded} recorded${prose}${failed}`;
  });
}

async function readSamples(path: string): Promise<SamplesFile> {
  // The samples file is part of the command line: any problem with it is a usage error.
  return readJsonFile(path, SamplesFileSchema, { what: "--samples", code: "INVALID_ARGUMENT" });
}
