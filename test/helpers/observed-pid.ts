import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { vi } from "vitest";

/** The behaviour server's pid, from the observation of a program's `pid` call: the program is then in its next call. */
export function observedPid(observations: string): Promise<number> {
  return vi.waitFor(
    async () => {
      const lines = (await readFile(join(observations, "behaviour", "pid.jsonl"), "utf8")).split("\n");
      return (JSON.parse(lines[1] ?? "") as { value: { pid: number } }).value.pid;
    },
    { timeout: 60_000, interval: 100 },
  );
}
