import { watch } from "chokidar";

export interface WatchOptions {
  /** How many folder levels below a watched folder are watched (default: all). */
  depth?: number;
  /** Paths whose changes are no concern (and whose folders are not entered). */
  ignored?: (path: string) => boolean;
}

/**
 * Calls `changed` when any of `paths` (files, or folders watched to any depth) is created,
 * changed or removed. Paths need not exist yet. Editors save by writing a temp file and renaming
 * it over the original, which `fs.watch` on the file loses; chokidar's `atomic` mode sees it as
 * one change.
 */
export function watchInputs(
  paths: readonly string[],
  changed: () => void,
  options: WatchOptions = {},
): { ready: Promise<void>; close(): Promise<void> } {
  const watcher = watch([...paths], { ignoreInitial: true, atomic: true, ...options });
  watcher.on("all", () => changed());
  // A folder that cannot be read is no reason to stop watching the rest.
  watcher.on("error", () => {});
  // Until its first scan is done a change can pass for a file that was already there, and be missed.
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  return { ready, close: () => watcher.close() };
}

type Watcher = ReturnType<typeof watchInputs>;

/**
 * A watch over paths the inputs may move (pmcp.config names another templates folder, another
 * observations folder): `moveTo` replaces the watcher when the paths differ. No paths, no watcher.
 */
export class MovableWatch {
  private paths: readonly string[];
  private watcher: Watcher;

  constructor(
    paths: readonly string[],
    private readonly changed: () => void,
    private readonly options: WatchOptions = {},
  ) {
    this.paths = [...paths];
    this.watcher = this.watch();
  }

  /** Settles once the current watcher's first scan is done. */
  get ready(): Promise<void> {
    return this.watcher.ready;
  }

  /** Watches `paths` from now on, once the old watcher is closed; false when they are the ones watched. */
  async moveTo(paths: readonly string[]): Promise<boolean> {
    if (paths.join("\0") === this.paths.join("\0")) return false;
    await this.watcher.close();
    this.paths = [...paths];
    this.watcher = this.watch();
    return true;
  }

  close(): Promise<void> {
    return this.watcher.close();
  }

  private watch(): Watcher {
    if (this.paths.length === 0) return { ready: Promise.resolve(), close: async () => {} };
    return watchInputs(this.paths, this.changed, this.options);
  }
}
