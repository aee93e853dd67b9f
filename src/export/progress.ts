import type { ServerSource } from "@pmcp-codegen/runtime/internal";
import { count } from "../count.js";
import type { ServerProgress } from "./export-servers.js";

/** Shows each server's progress on stderr, leaving stdout for the summary. */
export interface ProgressView {
  update(index: number, progress: ServerProgress): void;
  /** Resolves once the view has drawn its last frame. */
  finish(): Promise<void>;
}

export function silentProgress(): ProgressView {
  return { update: () => {}, finish: async () => {} };
}

/** One line per event, for logs and pipes. Failures are left to the final error lines. */
export function plainProgress(sources: readonly ServerSource[], write = (line: string) => process.stderr.write(`${line}\n`)): ProgressView {
  return {
    update(index, progress) {
      const label = sources[index]?.label ?? String(index);
      if (progress.state === "connecting") write(`${label}: connecting`);
      else if (progress.state === "done")
        write(`${label}: ${count(progress.tools, "tool")}${progress.id === label ? "" : ` (id "${progress.id}")`}`);
    },
    finish: async () => {},
  };
}

/** One live line per server on a terminal, drawn by listr2 (loaded only when needed). */
export async function liveProgress(sources: readonly ServerSource[]): Promise<ProgressView> {
  const { Listr, ListrLogger, ProcessOutput } = await import("listr2");
  const labels = sources.map((source) => source.label);
  // Updates can arrive before listr2 has started a task; the task picks up the latest title when it does.
  const titles = labels.map((label) => `${label}: waiting`);
  const tasks: ({ title: string } | undefined)[] = [];
  const settled = sources.map(deferred);
  const list = new Listr(
    sources.map((source, index) => ({
      title: `${source.label}: waiting`,
      task: async (_ctx: unknown, task: { title: string }) => {
        tasks[index] = task;
        task.title = titles[index]!;
        await settled[index]!.promise;
      },
    })),
    {
      concurrent: true,
      exitOnError: false,
      registerSignalListeners: false,
      // We already know stderr is a terminal; listr2 would otherwise judge by stdout.
      fallbackRendererCondition: false,
      rendererOptions: { logger: new ListrLogger({ processOutput: new ProcessOutput(process.stderr, process.stderr) }) },
    },
  );
  const running = list.run().then(
    () => {},
    () => {},
  );
  const setTitle = (index: number, title: string) => {
    titles[index] = title;
    const task = tasks[index];
    if (task !== undefined) task.title = title;
  };
  return {
    update(index, progress) {
      const label = labels[index] ?? String(index);
      if (progress.state === "connecting") setTitle(index, `${label}: connecting`);
      else if (progress.state === "listing") setTitle(index, `${label}: listing tools (${progress.transport})`);
      else if (progress.state === "done") {
        setTitle(index, `${label}: ${count(progress.tools, "tool")}`);
        settled[index]?.resolve();
      } else {
        settled[index]?.reject(new Error(`${label}: ${progress.message}`));
      }
    },
    finish: () => running,
  };
}

/** Promise.withResolvers, which Node 20 lacks. */
function deferred(): { promise: Promise<void>; resolve: () => void; reject: (error: Error) => void } {
  let resolve!: () => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
