import { readdirSync, readFileSync } from "node:fs";

/** Whether a process (a negative pid: any process of that group) is still there. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The pids of this process's children (Linux: every thread's `children` under /proc), or only those
 * whose command line has a word ending in `script`.
 */
export function childPids(script?: string): number[] {
  const tasks = readdirSync(`/proc/${process.pid}/task`);
  const pids = tasks.flatMap((task) =>
    readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8")
      .split(" ")
      .filter((word) => word !== "")
      .map(Number),
  );
  return script === undefined ? pids : pids.filter((pid) => commandLine(pid).some((word) => word.endsWith(script)));
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
  } catch {
    return [];
  }
}
