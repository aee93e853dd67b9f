import { mkdir } from "node:fs/promises";
import { resolve } from "node:path";
import { DEFAULT_BUNDLE_PATH } from "../bundle/defaults.js";
import { type QualityChange, qualityChangeLine } from "../bundle/quality-changes.js";
import { CONFIG_FILE_NAMES, loadPmcpConfig } from "../config/pmcp-config.js";
import { LOG_WATCH } from "../dev/follow-observations.js";
import { type DevInputs, type DevOutput, DevSession } from "../dev/session.js";
import { MovableWatch, type WatchedPaths } from "../dev/watch-inputs.js";
import type { BundleChange } from "../diff/bundle-diff.js";
import { formatText } from "../diff/format.js";
import { PmcpError } from "../errors.js";
import { systemReason } from "../files/system-reason.js";
import { expectFolder } from "../generate/generate-pipeline.js";
import { watchSignals } from "../signals.js";
import { generateSettings } from "./generate.js";
import type { CommandArgs } from "./shared/command.js";
import { printable, say, warn } from "./shared/output.js";
import { flagRow, settingOf } from "./shared/settings.js";
import { resolveSources } from "./shared/source-flags.js";
import { startTelemetry } from "./shared/telemetry-sdk.js";

type Args = CommandArgs<"dev">;

/**
 * `pmcp dev`: export and generate once, then again for each change of a server, pmcp.config, the
 * config file, the templates or, with --observations, the observation logs.
 */
export async function dev(args: Args): Promise<void> {
  const stopTelemetry = await startTelemetry({ stdoutCarriesProtocol: false });
  const session = new DevSession(() => loadInputs(args), { timeoutMs: args.timeout, debounceMs: args.debounce, output: devOutput(args) });
  const stopped = watchSignals();
  try {
    await Promise.race([session.start(), stopped.signalled]);
    if (stopped.received) return;
    // pmcp.config may name another templates folder, or another observations folder: the watchers follow.
    const watched = () => watchedPaths(CONFIG_FILE_NAMES, args.config, session.templatesDir);
    const logsDir = () => ({ folders: session.observationsDir === undefined ? [] : [resolve(session.observationsDir)] });
    // One follow at a time, so that two quick saves never leave a second watcher unclosed.
    let following = Promise.resolve();
    const onChange = () => {
      following = following.then(follow);
    };
    const inputs = new MovableWatch(watched(), onChange);
    const logs = new MovableWatch(logsDir(), () => session.observed(), LOG_WATCH);
    await Promise.race([Promise.all([inputs.ready, logs.ready]), stopped.signalled]);
    // A log written between the first run and the end of the first scan would wait for the next write.
    session.observed();
    async function follow() {
      await session.reload();
      if (stopped.received) return;
      const templatesMoved = await inputs.moveTo(watched());
      const logsMoved = await logs.moveTo(logsDir());
      if (!templatesMoved && !logsMoved) return;
      await Promise.race([Promise.all([inputs.ready, logs.ready]), stopped.signalled]);
      if (stopped.received) return;
      // Said once the new folder is watched: an edit made before this could pass unseen.
      if (templatesMoved) status(args, `templates now from ${session.templatesDir ?? "the built-in folder"}; watching for changes`);
      if (logsMoved) {
        status(args, `observations now from ${session.observationsDir ?? "nowhere"}; watching for changes`);
        session.observed();
      }
    }
    status(args, "watching for changes; Ctrl-C to stop");
    await stopped.signalled;
    await following;
    await Promise.all([inputs.close(), logs.close()]);
  } finally {
    await session.stop();
    stopped.release();
    await stopTelemetry();
  }
}

/** The servers, bundle path and generate settings, from the flags, else pmcp.config, else the defaults: read afresh on each change. */
async function loadInputs(args: Args): Promise<DevInputs> {
  const project = await loadPmcpConfig();
  const sources = await resolveSources(args, project, "watch");
  const bundle = settingOf(flagRow("dev", "bundle"), args.bundle, project, DEFAULT_BUNDLE_PATH);
  const [bundlePath, bundleFlag] = [bundle.value, bundle.name];
  const settings = generateSettings(args, project, bundlePath);
  await expectFolder(settings.outDir, settings.outFlag);
  const observations = settingOf(flagRow("dev", "observations"), args.observations, project);
  if (observations.value !== undefined) await logsFolder(observations.value, observations.name);
  return { sources, bundlePath, bundleFlag, settings, observations: observations.value };
}

/**
 * The observations folder, made if it is not there yet: a watch on a folder that does not exist
 * misses what is written into it once it does, and the first client to observe would make it anyway.
 */
async function logsFolder(dir: string, flag: string): Promise<void> {
  await expectFolder(dir, flag);
  await mkdir(dir, { recursive: true }).catch((error: unknown) => {
    throw new PmcpError("IO_FAILED", `${flag} ${dir}: ${systemReason(error)}`);
  });
}

/** pmcp.config (any of its names, whether there yet or not), the --config file and the templates folder. */
function watchedPaths(configNames: readonly string[], config: string | undefined, templatesDir: string | undefined): WatchedPaths {
  const files = [...configNames, ...(config === undefined ? [] : [config])].map((name) => resolve(name));
  return {
    files: files.filter((path, index) => files.indexOf(path) === index),
    folders: templatesDir === undefined ? [] : [resolve(templatesDir)],
  };
}

/**
 * Changes as `pmcp schema diff` prints them, then one line per tool whose quality changed, then one
 * `updated …` line, on stdout; under --json, one JSON line per regeneration.
 */
function devOutput(args: Args): DevOutput {
  return {
    regenerated(changes: readonly BundleChange[], quality: readonly QualityChange[], written, removed) {
      if (args.json && !args.quiet) {
        // One line per regeneration, as a stream of JSON objects is read (printJson indents one summary).
        process.stdout.write(`${JSON.stringify({ changes, quality, written, removed })}\n`);
        return;
      }
      // Judged and worded as `pmcp schema diff` prints them.
      if (changes.length > 0) for (const line of formatText(changes).trimEnd().split("\n")) say(args, line);
      for (const change of quality) say(args, qualityChangeLine(change));
      say(args, `updated ${[...written, ...removed.map((path) => `${path} (removed)`)].join(", ")}`);
    },
    status: (line) => status(args, line),
    warn: (line) => warn(args, line),
  };
}

function status(args: Args, line: string): void {
  if (!args.quiet) process.stderr.write(`${printable(line)}\n`);
}
