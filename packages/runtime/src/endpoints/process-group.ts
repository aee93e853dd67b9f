import type { ChildProcess, SpawnOptions } from "node:child_process";
// The SDK's own spawn: on Windows it finds `npx.cmd` and quotes its arguments, as `child_process` does not.
import spawn from "cross-spawn";
// Not a `process.on` of our own: proper-lockfile's signal-exit (v3) re-raises a signal only when its
// own listeners are the only ones, and v4 counts v3's, so neither keeps the process from ending.
import { onExit } from "signal-exit";

/** Process groups are a POSIX notion: on Windows a server is only the process started. */
const GROUPS = process.platform !== "win32";

/** How long a server may take to exit once its input ends, and again after SIGTERM, before SIGKILL. */
const STOP_GRACE_MS = 2000;
/** How often a group whose leader has exited is looked at until its other processes are gone, while stopping it. */
const POLL_MS = 50;
/** How often, without a stop under way, until then: once empty, its id may be another group's. */
const WATCH_MS = 250;

/** Servers started and not yet known to be gone, each with the stop under way, if any. */
const running = new Map<ChildProcess, Promise<void> | undefined>();
/**
 * Servers whose group was seen empty: never signalled again, since the kernel may give the
 * leader's pid, and so the group's id, to another process (a supervisor's rule: a pid is only
 * ours while we know the process lives).
 */
const ended = new WeakSet<ChildProcess>();
let stopTracking: (() => void) | undefined;

/**
 * Starts a server in a process group of its own (the child leads it), so that the processes it
 * starts itself (`npx` runs the real server as its grandchild) are stopped with it: on
 * stopServer, when its streams close, and when this process exits or dies of a signal without
 * having stopped it (SIGKILL then, the only thing an exit allows).
 */
export function spawnServer(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  const child = spawn(command, args, { ...options, detached: GROUPS });
  // Without a pid nothing started (its 'error' says why). Tracked at once, not on 'spawn': a stop
  // asked for before that event still stops it.
  if (child.pid === undefined) return child;
  running.set(child, undefined);
  stopTracking ??= onExit(() => {
    for (const server of running.keys()) signal(server, "SIGKILL");
  });
  // The leader's streams closed: whatever of the group is left (a grandchild that closed its stdio) is stopped too.
  child.once("close", () => void stopServer(child));
  // The leader exited: its streams may stay open for ever (a process of another session holds
  // them), so the group is watched until it is empty, and then forgotten.
  child.once("exit", () => watchGroup(child));
  return child;
}

function watchGroup(child: ChildProcess): void {
  if (!running.has(child) || ended.has(child)) return;
  if (!alive(child)) {
    forget(child);
    return;
  }
  setTimeout(() => watchGroup(child), WATCH_MS).unref();
}

/** The group is gone: it is not signalled again, and no longer stopped at exit. */
function forget(child: ChildProcess): void {
  ended.add(child);
  // A stop under way ends on its own, its next look finding the group gone.
  if (running.get(child) !== undefined) return;
  untrack(child);
}

function untrack(child: ChildProcess): void {
  running.delete(child);
  if (running.size === 0) {
    stopTracking?.();
    stopTracking = undefined;
  }
}

/**
 * Ends a server's input, as the MCP spec asks, then SIGTERM and at last SIGKILL to its whole
 * group, each after STOP_GRACE_MS; resolves once the group is gone. Once per server: a second
 * call gets the first's promise.
 */
export function stopServer(child: ChildProcess): Promise<void> {
  if (!running.has(child)) return Promise.resolve();
  let stopping = running.get(child);
  if (stopping === undefined) {
    stopping = (async () => {
      child.stdin?.end();
      for (const name of ["SIGTERM", "SIGKILL"] as const) {
        if (await gone(child)) break;
        signal(child, name);
      }
      // SIGKILL cannot be refused: the wait is for the kernel to end the processes.
      await gone(child);
      untrack(child);
    })();
    running.set(child, stopping);
  }
  return stopping;
}

function signal(child: ChildProcess, name: NodeJS.Signals): void {
  if (ended.has(child)) return;
  try {
    if (GROUPS && child.pid !== undefined) process.kill(-child.pid, name);
    else child.kill(name);
  } catch {
    // Gone already.
  }
}

/** Whether any process of the group is left; once it was seen empty, never again. */
function alive(child: ChildProcess): boolean {
  if (ended.has(child)) return false;
  if (!GROUPS || child.pid === undefined) return child.exitCode === null && child.signalCode === null;
  try {
    process.kill(-child.pid, 0);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EPERM") return true;
    ended.add(child);
    return false;
  }
}

/** Whether the group ended within STOP_GRACE_MS: the leader's exit is an event, the rest of the group is polled for. */
async function gone(child: ChildProcess): Promise<boolean> {
  const deadline = Date.now() + STOP_GRACE_MS;
  if (child.exitCode === null && child.signalCode === null) {
    let settle = () => {};
    const timer = setTimeout(() => settle(), STOP_GRACE_MS);
    await new Promise<void>((resolve) => {
      settle = resolve;
      child.once("exit", settle);
    });
    clearTimeout(timer);
    child.off("exit", settle);
  }
  while (alive(child)) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return true;
}
