import { watch } from "chokidar";

/**
 * Calls `changed` when any of `paths` (files, or folders watched to any depth) is created,
 * changed or removed. Paths need not exist yet. Editors save by writing a temp file and renaming
 * it over the original, which `fs.watch` on the file loses; chokidar's `atomic` mode sees it as
 * one change.
 */
export function watchInputs(paths: readonly string[], changed: () => void): { ready: Promise<void>; close(): Promise<void> } {
  const watcher = watch([...paths], { ignoreInitial: true, atomic: true });
  watcher.on("all", () => changed());
  // A folder that cannot be read is no reason to stop watching the rest.
  watcher.on("error", () => {});
  // Until its first scan is done a change can pass for a file that was already there, and be missed.
  const ready = new Promise<void>((resolve) => watcher.once("ready", () => resolve()));
  return { ready, close: () => watcher.close() };
}
