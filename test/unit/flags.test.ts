import { describe, expect, it } from "vitest";
import yargs from "yargs";
import { commandPaths } from "../../src/cli/commands.js";
import { FLAGS, type Flag, withFlags } from "../../src/commands/shared/flags.js";
import { CONFIG_KEYS } from "../../src/config/keys.js";
import { EXEC_SETTINGS } from "../../src/exec/limits.js";

describe("the table of flags", () => {
  it("has each command's flags, and no command more", () => {
    expect(Object.keys(FLAGS).sort()).toEqual(
      commandPaths()
        .map(({ path }) => path)
        .sort(),
    );
  });

  it("names, for a flag that stands for a pmcp.config key, a key the config has", () => {
    const keys = new Set([...Object.keys(CONFIG_KEYS), ...Object.keys(EXEC_SETTINGS).map((setting) => `exec.${setting}`), "observe.dir"]);
    const named = Object.values(FLAGS).flatMap((flags) => (flags as readonly Flag[]).flatMap((row) => row.config ?? []));
    expect(named.filter((key) => !keys.has(key))).toEqual([]);
    expect([...new Set(named)].sort()).toEqual([
      "bundle",
      "exec.maxCalls",
      "exec.maxConcurrentCalls",
      "exec.maxHeapMb",
      "exec.maxOutputBytes",
      "exec.maxPrograms",
      "exec.maxTimeMs",
      "observe.dir",
      "output",
      "runtimeImport",
      "servers",
      "strictObjects",
      "templates",
    ]);
  });

  it("checks a value given, as a usage error naming the flag, and leaves an absent one alone", async () => {
    const parse = (argv: string[]) =>
      withFlags(yargs([]), FLAGS["schema discover"])
        .exitProcess(false)
        .fail((message, error) => {
          throw error ?? new Error(message);
        })
        .parseAsync(argv);
    await expect(async () => parse(["--observations", "o", "--max-samples", "0"])).rejects.toThrow("--max-samples must be a whole number");
    await expect(async () => parse(["--observations", "o", "--timeout", "-5"])).rejects.toThrow(/^--timeout /);
    expect((await parse(["--observations", "o"])).maxSamples).toBeUndefined();
    expect((await parse(["--observations", "o", "--max-samples", "5"])).maxSamples).toBe(5);
  });
});
