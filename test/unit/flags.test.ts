import { relative } from "node:path";
import { describe, expect, it } from "vitest";
import yargs from "yargs";
import { commandPaths } from "../../src/cli/commands.js";
import { FLAGS, type Flag, withFlags } from "../../src/commands/shared/flags.js";
import { flagName, flagRow, settingOf } from "../../src/commands/shared/settings.js";
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

describe("a setting from its flag's row", () => {
  const project = {
    path: "/p/pmcp.config.json",
    dir: "/p",
    config: { output: "clients", rust: { output: "crates/gen" }, strictObjects: true },
  };
  const here = (path: string) => relative(process.cwd(), path);

  it("is the flag as given, else the config key the row names (a path relative to the config file), else the default", () => {
    const output = flagRow("generate", "output");
    expect(settingOf(output, "out", project, "generated")).toEqual({ value: "out", origin: "flag", name: "-o" });
    expect(settingOf(output, undefined, project, "generated")).toEqual({
      value: here("/p/clients"),
      origin: "config",
      name: "pmcp.config output",
    });
    expect(settingOf(output, undefined, undefined, "generated")).toEqual({ value: "generated", origin: "default", name: "output" });
    expect(settingOf(output, undefined, project, "generated", "rust.output")).toEqual({
      value: here("/p/crates/gen"),
      origin: "config",
      name: "pmcp.config rust.output",
    });
    expect(settingOf(flagRow("exec", "strict-objects"), undefined, project, false)).toEqual({
      value: true,
      origin: "config",
      name: "pmcp.config strictObjects",
    });
    expect(settingOf(flagRow("dev", "observations"), undefined, project)).toEqual({
      value: undefined,
      origin: "default",
      name: "observe.dir",
    });
  });

  it("names a flag by its one-letter alias, else by its name; a flag a command lacks is our mistake", () => {
    expect([flagName(flagRow("schema export", "output")), flagName(flagRow("dev", "bundle"))]).toEqual(["-o", "--bundle"]);
    // @ts-expect-error: the compiler refuses a flag the command lacks; at run time it is an error of ours.
    expect(() => flagRow("inspect", "output")).toThrow("pmcp inspect has no flag --output");
  });
});
