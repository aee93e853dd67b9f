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

/** The pids of this process's children (Linux: every thread's `children` under /proc). */
export function childPids(): number[] {
  const tasks = readdirSync(`/proc/${process.pid}/task`);
  return tasks.flatMap((task) =>
    readFileSync(`/proc/${process.pid}/task/${task}/children`, "utf8")
      .split(" ")
      .filter((word) => word !== "")
      .map(Number),
  );
}
