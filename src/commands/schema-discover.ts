import type { Argv } from "yargs";
import { count } from "../count.js";
import type { DiscoverOutcome } from "../discover/discover.js";
import type { SamplesFile } from "../discover/plan-calls.js";
import { PmcpError } from "../errors.js";
import { type ArgsOf, defineCommand, type GlobalArgs } from "./shared/command.js";
import { FLAGS, withFlags } from "./shared/flags.js";
import { printJson, say, warn } from "./shared/output.js";

const builder = (yargs: Argv<GlobalArgs>) =>
  withFlags(yargs, FLAGS["schema discover"]).example(
    "$0 schema discover --config .mcp.json --samples samples.json --observations observations/",
    "Call the safe tools with the sample arguments",
  );

export const schemaDiscoverCommand = defineCommand({
  command: "discover",
  describe: "Call the read-only tools of live servers to log what they return, for schema infer",
  builder,
  handler: schemaDiscover,
});

type Args = ArgsOf<typeof builder>;

/** `pmcp schema discover`: call the tools that are safe to call and log what they return. */
async function schemaDiscover(args: Args): Promise<void> {
  const { loadPmcpConfig } = await import("../config/pmcp-config.js");
  const { hasSourceFlags, resolveSources } = await import("./shared/source-flags.js");
  const { discoverServer } = await import("../discover/discover.js");
  const { unmatchedSamples } = await import("../discover/plan-calls.js");
  const { ObservationRecorder } = await import("@pmcp-codegen/runtime");
  const { strayOutputWarning } = await import("@pmcp-codegen/runtime/internal/servers");
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
  const { readJsonFile } = await import("../files/read-json.js");
  const { SamplesFileSchema } = await import("../discover/plan-calls.js");
  // The samples file is part of the command line: any problem with it is a usage error.
  return readJsonFile(path, SamplesFileSchema, { what: "--samples", code: "INVALID_ARGUMENT" });
}
