import { resolve } from "node:path";
import { wholeNumberProblem } from "@pmcp-codegen/runtime/internal/numbers";
import type { Argv } from "yargs";
import { DEFAULT_BUNDLE_PATH } from "../bundle/defaults.js";
import type { DevInputs, DevOutput } from "../dev/session.js";
import type { BundleChange } from "../diff/bundle-diff.js";
import { formatText } from "../diff/format.js";
import { PmcpError } from "../errors.js";
import { watchSignals } from "../signals.js";
import { generateOptions, generateSettings } from "./generate.js";
import { type ArgsOf, defineCommand, type GlobalArgs } from "./shared/command.js";
import { sourceOptions, timeoutOption } from "./shared/options.js";
import { printable, say, warn } from "./shared/output.js";
import { resolvePathSetting } from "./shared/settings.js";

const builder = (yargs: Argv<GlobalArgs>) =>
  generateOptions(timeoutOption(sourceOptions(yargs), "per server to connect, or to list its tools"))
    .option("bundle", {
      type: "string",
      describe: `Bundle file kept up to date (default: pmcp.config bundle, else ${DEFAULT_BUNDLE_PATH})`,
    })
    .option("debounce", {
      type: "number",
      default: 100,
      describe: "Milliseconds during which further changes join one regeneration",
    })
    .check((args) => {
      const problem = wholeNumberProblem(args.debounce, { min: 0, max: 60_000, unit: "milliseconds" });
      if (problem !== undefined) throw new PmcpError("INVALID_ARGUMENT", `--debounce ${problem}`);
      return true;
    })
    .example("$0 dev", "Keep the bundle and generated/ up to date with the servers of pmcp.config")
    .example('$0 dev --stdio "node server.js" --id inventory', "Follow one stdio server while you edit it");

export const devCommand = defineCommand({
  command: "dev",
  describe: "Keep the bundle and the generated clients up to date while servers change (Ctrl-C to stop)",
  builder,
  handler: dev,
});

type Args = ArgsOf<typeof builder>;

/** `pmcp dev`: export and generate once, then again for each change of a server, pmcp.config, the config file or the templates. */
async function dev(args: Args): Promise<void> {
  const { DevSession } = await import("../dev/session.js");
  const { watchInputs } = await import("../dev/watch-inputs.js");
  const { CONFIG_FILE_NAMES } = await import("../config/pmcp-config.js");
  const { startTelemetry } = await import("./shared/telemetry-sdk.js");
  const stopTelemetry = await startTelemetry({ stdoutCarriesProtocol: false });
  const session = new DevSession(() => loadInputs(args), { timeoutMs: args.timeout, debounceMs: args.debounce, output: devOutput(args) });
  const stopped = watchSignals();
  try {
    await Promise.race([session.start(), stopped.signalled]);
    if (stopped.received) return;
    // pmcp.config may name another templates folder: the watcher follows it.
    const watched = () => watchedPaths(CONFIG_FILE_NAMES, args.config, session.templatesDir);
    let paths = watched();
    // One follow at a time, so that two quick saves never leave a second watcher unclosed.
    let following = Promise.resolve();
    const onChange = () => {
      following = following.then(follow);
    };
    let watcher = watchInputs(paths, onChange);
    await Promise.race([watcher.ready, stopped.signalled]);
    async function follow() {
      await session.reload();
      const next = watched();
      if (stopped.received || next.join("\0") === paths.join("\0")) return;
      await watcher.close();
      if (stopped.received) return;
      paths = next;
      watcher = watchInputs(paths, onChange);
      await Promise.race([watcher.ready, stopped.signalled]);
      // Said once the new folder is watched: an edit made before this could pass unseen.
      if (!stopped.received) status(args, `templates now from ${session.templatesDir ?? "the built-in folder"}; watching for changes`);
    }
    status(args, "watching for changes; Ctrl-C to stop");
    await stopped.signalled;
    await following;
    await watcher.close();
  } finally {
    await session.stop();
    stopped.release();
    await stopTelemetry();
  }
}

/** The servers, bundle path and generate settings, from the flags, else pmcp.config, else the defaults: read afresh on each change. */
async function loadInputs(args: Args): Promise<DevInputs> {
  const { loadPmcpConfig } = await import("../config/pmcp-config.js");
  const { resolveSources } = await import("./shared/source-flags.js");
  const { expectFolder } = await import("../codegen/generate-pipeline.js");
  const project = await loadPmcpConfig();
  const sources = await resolveSources(args, project, "watch");
  const bundle = resolvePathSetting({ name: "--bundle", value: args.bundle }, project, "bundle", DEFAULT_BUNDLE_PATH);
  const [bundlePath, bundleFlag] = [bundle.value, bundle.name];
  const settings = generateSettings(args, project, bundlePath);
  await expectFolder(settings.outDir, settings.outFlag);
  return { sources, bundlePath, bundleFlag, settings };
}

/** pmcp.config (any of its names, whether there yet or not), the --config file and the templates folder. */
function watchedPaths(configNames: readonly string[], config: string | undefined, templatesDir: string | undefined): string[] {
  return [
    ...configNames.map((name) => resolve(name)),
    ...(config === undefined ? [] : [resolve(config)]),
    ...(templatesDir === undefined ? [] : [resolve(templatesDir)]),
  ].filter((path, index, all) => all.indexOf(path) === index);
}

/** Changes as `pmcp schema diff` prints them, then one `updated …` line, on stdout; under --json, one JSON line per regeneration. */
function devOutput(args: Args): DevOutput {
  return {
    regenerated(changes: readonly BundleChange[], written, removed) {
      if (args.json && !args.quiet) {
        // One line per regeneration, as a stream of JSON objects is read (printJson indents one summary).
        process.stdout.write(`${JSON.stringify({ changes, written, removed })}\n`);
        return;
      }
      // Judged and worded as `pmcp schema diff` prints them.
      if (changes.length > 0) for (const line of formatText(changes).trimEnd().split("\n")) say(args, line);
      say(args, `updated ${[...written, ...removed.map((path) => `${path} (removed)`)].join(", ")}`);
    },
    status: (line) => status(args, line),
    warn: (line) => warn(args, line),
  };
}

function status(args: Args, line: string): void {
  if (!args.quiet) process.stderr.write(`${printable(line)}\n`);
}
