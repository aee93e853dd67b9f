import { stat } from "node:fs/promises";
import { errorMessage } from "@pmcp-codegen/runtime/internal";
import { sameSubstance } from "../bundle/carry-inferred.js";
import type { Bundle, InferredTool } from "../bundle/types.js";
import { inferBundle, LogMemory } from "../learn/observation-logs.js";
import type { WatchOptions } from "./watch-inputs.js";

/**
 * `pmcp dev`'s learning from a folder of observation logs: what each log teaches, re-inferred only
 * for the logs whose bytes changed. A tool's block in the bundle is replaced only when it changes in
 * substance (see sameSubstance); unlike carryInferred's rule, a block from fewer results does replace
 * one from more here: the logs dev follows are the bundle's own source, so a log cleared is a fresh start.
 */
export class ObservationFollower {
  private readonly memory = new LogMemory();

  constructor(readonly dir: string) {}

  /**
   * `bundle` with the blocks that changed in substance. A folder not there (yet, or any more) teaches
   * nothing; one that cannot be read is a problem to report, never a reason to stop following the servers.
   */
  async learn(bundle: Bundle): Promise<{ bundle: Bundle; problems: string[] }> {
    let learned: Awaited<ReturnType<typeof inferBundle>>;
    try {
      learned = await inferBundle(bundle, this.dir, this.memory);
    } catch (error) {
      const there = await stat(this.dir).then(
        () => true,
        () => false,
      );
      // readLogs names the folder in its message.
      return { bundle, problems: there ? [`${errorMessage(error)}; not learned from`] : [] };
    }
    const had = new Map(bundle.servers.map((server) => [server.id, server.inferred ?? []]));
    const servers = learned.bundle.servers.map((server) => {
      if (server.inferred === undefined) return server;
      const before = new Map((had.get(server.id) ?? []).map((block) => [block.tool, block]));
      return { ...server, inferred: server.inferred.map((block) => kept(before.get(block.tool), block)) };
    });
    return { bundle: { ...learned.bundle, servers }, problems: [...learned.warnings, ...learned.failed] };
  }
}

function kept(before: InferredTool | undefined, after: InferredTool): InferredTool {
  return before !== undefined && sameSubstance(before, after) ? before : after;
}

/**
 * What of an observations folder is watched: the `<server>/<tool>.jsonl` logs, not the temp files
 * a writer renames over them (writeFilesAtomically's names) or its lock folders (proper-lockfile's).
 */
export const LOG_WATCH: WatchOptions = {
  depth: 1,
  ignored: (path) => /\.pmcp-\d+-[0-9a-f]+\.tmp$|\.jsonl\.lock$/.test(path),
};
