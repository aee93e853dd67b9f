import { type FSWatcher, watch as watchFolder } from "node:fs";
import { basename, dirname } from "node:path";
import { watch } from "chokidar";

export interface WatchOptions {
  /** How many folder levels below a watched folder are watched (default: all). */
  depth?: number;
  /** Paths whose changes are no concern (and whose folders are not entered). */
  ignored?: (path: string) => boolean;
}

/** What a watch covers: files, and folders to any depth (or `depth`). Neither need exist yet. */
export interface WatchedPaths {
  files?: readonly string[];
  folders?: readonly string[];
}

/**
 * Calls `changed` when any of the files or anything in the folders is created, changed or removed.
 * A file is watched through its folder, by name: editors save by writing a temp file and renaming
 * it over the original, and a watch on the file itself (chokidar's, even in `atomic` mode) follows
 * the old file and must be set up again on the new one, losing a save that comes meanwhile or
 * within its 50 ms throttle. The folder's own watch sees every rename into it.
 */
export function watchInputs(
  paths: WatchedPaths,
  changed: () => void,
  options: WatchOptions = {},
): { ready: Promise<void>; close(): Promise<void> } {
  const files = watchFiles(paths.files ?? [], changed);
  const folders = paths.folders ?? [];
  if (folders.length === 0) return { ready: Promise.resolve(), close: async () => files.close() };
  const watcher = watch([...folders], { ignoreInitial: true, atomic: true, ...options });
  watcher.on("all", () => changed());
  // A folder that cannot be read is no reason to stop watching the rest.
  watcher.on("error", () => {});
  // Until its first scan is done a change can pass for a file that was already there, and be missed.
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  return {
    ready,
    close: async () => {
      files.close();
      await watcher.close();
    },
  };
}

/** One `fs.watch` per folder holding any of `files`, calling `changed` for events about their names; in place from the return on. */
function watchFiles(files: readonly string[], changed: () => void): { close(): void } {
  const names = new Map<string, Set<string>>();
  for (const file of files) names.set(dirname(file), (names.get(dirname(file)) ?? new Set()).add(basename(file)));
  const watchers: FSWatcher[] = [];
  for (const [folder, wanted] of names) {
    try {
      // Where the platform names no file, the event may be any of them.
      const watcher = watchFolder(folder, (_event, name) => {
        if (name === null || wanted.has(name.toString())) changed();
      });
      // A folder removed or unreadable is no reason to stop watching the rest.
      watcher.on("error", () => {});
      watchers.push(watcher);
    } catch {
      // A folder not there to watch holds no file that could change; the rest are watched.
    }
  }
  return {
    close: () => {
      for (const watcher of watchers) watcher.close();
    },
  };
}

type Watcher = ReturnType<typeof watchInputs>;

/**
 * A watch over paths the inputs may move (pmcp.config names another templates folder, another
 * observations folder): `moveTo` replaces the watcher when the paths differ.
 */
export class MovableWatch {
  private paths: WatchedPaths;
  private watcher: Watcher;

  constructor(
    paths: WatchedPaths,
    private readonly changed: () => void,
    private readonly options: WatchOptions = {},
  ) {
    this.paths = paths;
    this.watcher = watchInputs(paths, changed, options);
  }

  /** Settles once the current watcher's first scan is done. */
  get ready(): Promise<void> {
    return this.watcher.ready;
  }

  /** Watches `paths` from now on, once the old watcher is closed; false when they are the ones watched. */
  async moveTo(paths: WatchedPaths): Promise<boolean> {
    if (key(paths) === key(this.paths)) return false;
    await this.watcher.close();
    this.paths = paths;
    this.watcher = watchInputs(paths, this.changed, this.options);
    return true;
  }

  close(): Promise<void> {
    return this.watcher.close();
  }
}

const key = (paths: WatchedPaths) => JSON.stringify([paths.files ?? [], paths.folders ?? []]);
