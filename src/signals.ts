import { constants } from "node:os";

/** The signals that end a long-running command: Ctrl-C, a service manager's stop, a closed terminal. */
export const ENDING_SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const;

export interface SignalWatch {
  /** Resolves on the first ending signal. */
  signalled: Promise<void>;
  /** The first signal received, if any. */
  readonly received: NodeJS.Signals | undefined;
  /** Stops listening; call once the command's own shutdown is done. */
  release(): void;
}

/**
 * How every long-running command (serve, dev, exec) ends: the first SIGINT, SIGTERM or SIGHUP
 * resolves `signalled` and lets the command close its servers and files; a second exits at once,
 * with the signal's shell code (130 for SIGINT), for a shutdown that hangs. The listeners stay
 * until released: signal-exit (the observation files' locks, the runtime's stdio servers) ends the
 * process as soon as its own listeners are the only ones, which would kill the servers (SIGKILL, as
 * at any exit) instead of closing them.
 */
export function watchSignals(): SignalWatch {
  watches++;
  let released = false;
  let received: NodeJS.Signals | undefined;
  let resolveSignalled!: () => void;
  const signalled = new Promise<void>((resolve) => {
    resolveSignalled = resolve;
  });
  const onSignal = (signal: NodeJS.Signals) => {
    if (received !== undefined) exitAsSignalled(signal);
    received = signal;
    resolveSignalled();
  };
  for (const name of ENDING_SIGNALS) process.on(name, onSignal);
  return {
    signalled,
    get received() {
      return received;
    },
    release: () => {
      if (released) return;
      released = true;
      watches--;
      for (const name of ENDING_SIGNALS) process.off(name, onSignal);
    },
  };
}

/** Watches not yet released: while there is one, a command is ending on a signal its own way. */
let watches = 0;

/**
 * For work that holds a signal back to finish safely (an atomic write removing its temp files):
 * passes the signal on once done. A command watching signals ends on it its own way (closing its
 * servers first), so the signal is not raised again for it, where it would count as a second one.
 */
export function raiseUnlessWatched(signal: NodeJS.Signals): void {
  if (watches === 0) process.kill(process.pid, signal);
}

/** Ends the process as the signal would have, by the shell's convention (128 + the signal's number). */
export function exitAsSignalled(signal: NodeJS.Signals): never {
  process.exit(128 + constants.signals[signal]);
}
