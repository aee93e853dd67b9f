import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { closeSync, openSync, watch } from "node:fs";
import { chmod, lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, runCli, runInProcess } from "../helpers/cli.js";
import { outputDir, typecheck } from "../helpers/typescript.js";

/** A bundle of `servers` servers of three tools, whose descriptions carry `marker`. */
function bundleText(servers: number, marker: string, ids?: readonly string[]): string {
  const names = ids ?? Array.from({ length: servers }, (_, index) => `server-${String(index).padStart(3, "0")}`);
  return JSON.stringify({
    version: "1.0",
    servers: names.map((id) => ({
      id,
      tools: ["get", "list", "put"].map((name) => ({
        name,
        description: `${marker} ${name}`,
        inputSchema: { type: "object", properties: { key: { type: "string" } }, required: ["key"] },
        outputSchema: { type: "object", properties: { value: { type: "string" } } },
      })),
    })),
  });
}

const GENERATE = ["generate", "--runtime-import", "@pmcp-codegen/runtime"];

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string }> {
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  return new Promise((resolve) => child.on("close", (code, signal) => resolve({ code, signal, stderr })));
}

/** What `schema normalize` writes for `bundle` on stdout, to compare written files with: a reference, run in this process. */
async function normalized(bundle: string): Promise<string> {
  const result = await runInProcess(["schema", "normalize", "--schema", bundle, "--profile", "openai", "--quiet"]);
  expect(result.code).toBe(0);
  return result.stdout;
}

describe("-o onto links, devices and FIFOs", () => {
  it("writes through a symlink to its target and keeps the link", async () => {
    const dir = await outputDir("out-symlink");
    const bundle = join(dir, "bundle.json");
    await writeFile(bundle, bundleText(2, "linked"));
    await mkdir(join(dir, "real"));
    await writeFile(join(dir, "real/normalized.json"), "{}\n");
    await symlink("real/normalized.json", join(dir, "link.json"));
    const result = await runCli(["schema", "normalize", "--schema", bundle, "--profile", "openai", "-o", join(dir, "link.json")]);
    expect(result.code).toBe(0);
    expect((await lstat(join(dir, "link.json"))).isSymbolicLink()).toBe(true);
    expect(await readlink(join(dir, "link.json"))).toBe("real/normalized.json");
    expect(await readFile(join(dir, "real/normalized.json"), "utf8")).toBe(await normalized(bundle));
    expect((await readdir(join(dir, "real"))).sort()).toEqual(["normalized.json"]);
  });

  it("keeps a replaced file's permissions, and refuses to replace a read-only file, in one line", async () => {
    const dir = await outputDir("out-modes");
    const bundle = join(dir, "bundle.json");
    await writeFile(bundle, bundleText(2, "modes"));
    const target = join(dir, "normalized.json");
    await writeFile(target, "{}\n");
    await chmod(target, 0o600);
    expect((await runCli(["schema", "normalize", "--schema", bundle, "--profile", "openai", "-o", target])).code).toBe(0);
    expect([await readFile(target, "utf8"), (await stat(target)).mode & 0o777]).toEqual([await normalized(bundle), 0o600]);

    await writeFile(target, "{}\n");
    await chmod(target, 0o444);
    const refused = await runInProcess(["schema", "normalize", "--schema", bundle, "--profile", "openai", "-o", target]);
    expect([refused.code, refused.stderr.split("\n")[0], await readFile(target, "utf8")]).toEqual([
      2,
      `pmcp: -o ${target}: the file is read-only; not replacing it`,
      "{}\n",
    ]);
    expect(await readdir(dir)).toEqual(["bundle.json", "normalized.json"]);
  });

  it("writes into a character device in place (a link to /dev/null), leaving the device and the link as they are", async () => {
    const dir = await outputDir("out-device");
    const bundle = join(dir, "bundle.json");
    await writeFile(bundle, bundleText(1, "device"));
    await symlink("/dev/null", join(dir, "null"));
    await writeFile(
      join(dir, "tools.ts"),
      "/** Says hi. */\nexport async function hello(args: { name: string }): Promise<string> {\n  return args.name;\n}\n",
    );
    for (const args of [
      ["tools", "from-source", join(dir, "tools.ts"), "-o", join(dir, "null")],
      ["schema", "normalize", "--schema", bundle, "--profile", "openai", "-o", join(dir, "null")],
    ]) {
      const written = await runCli(args);
      expect(written.stderr).toBe("");
      expect(written.code).toBe(0);
      expect((await lstat(join(dir, "null"))).isSymbolicLink()).toBe(true);
      expect((await stat("/dev/null")).isCharacterDevice()).toBe(true);
    }
  });

  it.skipIf(process.getuid?.() === 0)("writes -o /dev/null itself in place when not root", async () => {
    const dir = await outputDir("out-dev-null");
    const bundle = join(dir, "bundle.json");
    await writeFile(bundle, bundleText(1, "null"));
    const result = await runCli(["schema", "normalize", "--schema", bundle, "--profile", "openai", "-o", "/dev/null"]);
    expect(result.stderr).toBe("");
    expect(result.code).toBe(0);
  });

  it("writes into a FIFO for the reader at the other end, and the FIFO stays", async () => {
    const dir = await outputDir("out-fifo");
    const bundle = join(dir, "bundle.json");
    await writeFile(bundle, bundleText(3, "fifo"));
    const fifo = join(dir, "pipe");
    execFileSync("mkfifo", [fifo]);
    const reader = spawn("cat", [fifo], { stdio: ["ignore", "pipe", "ignore"] });
    let read = "";
    reader.stdout.on("data", (chunk: Buffer) => {
      read += chunk.toString("utf8");
    });
    const done = new Promise((resolve) => reader.on("close", resolve));
    const result = await runCli(["schema", "normalize", "--schema", bundle, "--profile", "openai", "-o", fifo]);
    const stillFifo = (await lstat(fifo)).isFIFO();
    // A reader still waiting on a FIFO that was replaced never ends by itself.
    if (!stillFifo) reader.kill();
    await done;
    expect(stillFifo).toBe(true);
    expect(result.code).toBe(0);
    expect(read).toBe(await normalized(bundle));
  });
  it("writes into bash's >(...), a /dev/fd link to a pipe", async () => {
    const dir = await outputDir("out-process-substitution");
    const bundle = join(dir, "bundle.json");
    await writeFile(bundle, bundleText(3, "substituted"));
    const into = join(dir, "through-pipe.json");
    const words = [process.execPath, CLI, "schema", "normalize", "--schema", bundle, "--profile", "openai", "--quiet", "-o"];
    const script = `${words.map((word) => JSON.stringify(word)).join(" ")} >(cat > ${JSON.stringify(into)}); code=$?; wait $!; exit $code`;
    const ended = await exited(spawn("bash", ["-c", script], { stdio: ["ignore", "ignore", "pipe"] }));
    expect(ended).toEqual({ code: 0, signal: null, stderr: "" });
    expect(await readFile(into, "utf8")).toBe(await normalized(bundle));
  });
});

describe("-o onto the wrong kind of path", () => {
  it("says in one line that a folder is where a file goes, or a file where a folder goes, and exits 2", async () => {
    const dir = await outputDir("out-wrong-kind");
    const bundle = join(dir, "bundle.json");
    await writeFile(bundle, bundleText(1, "kind"));
    await mkdir(join(dir, "folder"));
    const normalize = ["schema", "normalize", "--schema", bundle, "--profile", "openai", "-o"];
    const cases: [string[], string][] = [
      [[...normalize, join(dir, "folder")], `pmcp: -o ${join(dir, "folder")}: a folder is there, not a file`],
      [
        [...normalize, join(dir, "bundle.json/x/y.json")],
        `pmcp: -o ${join(dir, "bundle.json/x/y.json")}: ${bundle} is a file, not a folder`,
      ],
      [[...GENERATE, "--schema", bundle, "-o", bundle], `pmcp: -o ${bundle}: a file is there, not a folder`],
    ];
    for (const [args, line] of cases) {
      const result = await runInProcess(args);
      expect(result.code).toBe(2);
      expect(result.stderr.split("\n")).toEqual([line, "pmcp: run 'pmcp --help' for usage", ""]);
    }
    expect(await readdir(join(dir, "folder"))).toEqual([]);
    expect(await readFile(bundle, "utf8")).toBe(bundleText(1, "kind"));
  });
});

describe("stdout that cannot be written", () => {
  it("exits 1 with one line when stdout is full, and quietly when its reader has gone", async () => {
    const dir = await outputDir("out-stdout");
    const bundle = join(dir, "bundle.json");
    // Far more than a pipe holds, so the writer meets the closed pipe whenever the reader goes.
    await writeFile(bundle, bundleText(300, "stdout"));
    const full = openSync("/dev/full", "w");
    try {
      const child = spawn(process.execPath, [CLI, "schema", "normalize", "--schema", bundle, "--profile", "openai"], {
        stdio: ["ignore", full, "pipe"],
      });
      expect(await exited(child)).toEqual({
        code: 1,
        signal: null,
        stderr: "pmcp: cannot write to stdout: no space left on device\n",
      });
    } finally {
      closeSync(full);
    }
    const piped = spawn(process.execPath, [CLI, "schema", "normalize", "--schema", bundle, "--profile", "openai"], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    piped.stdout?.destroy();
    expect(await exited(piped)).toEqual({ code: 0, signal: null, stderr: "" });
  });
});

describe("generate and files it did not write", () => {
  it("refuses to replace a hand-written file, in one line, and leaves the folder as it was", async () => {
    const dir = await outputDir("gen-foreign");
    const bundle = join(dir, "bundle.json");
    await writeFile(bundle, bundleText(2, "foreign"));
    const out = join(dir, "out");
    await mkdir(out);
    await writeFile(join(out, "index.ts"), "export const mine = 1;\n");
    const result = await runCli([...GENERATE, "--schema", bundle, "-o", out]);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `pmcp: ${join(out, "index.ts")} not written by pmcp generate (no generated banner); not replacing it: move it away or choose another -o\n`,
    );
    expect(await readdir(out)).toEqual(["index.ts"]);
    expect(await readFile(join(out, "index.ts"), "utf8")).toBe("export const mine = 1;\n");
  });

  it("names modules like identifiers: `index` and ids differing only in case get numbered files, with a warning, and compile", async () => {
    const dir = await outputDir("gen-names");
    const bundle = join(dir, "bundle.json");
    await writeFile(bundle, bundleText(0, "names", ["Foo", "foo", "index", "nul"]));
    const out = join(dir, "out");
    const result = await runCli([...GENERATE, "--schema", bundle, "-o", out]);
    expect(result.code).toBe(0);
    expect(result.stderr.trimEnd().split("\n")).toEqual([
      'warning: server "foo": server id differs from another server id only in case; its module is foo-2.ts',
      'warning: server "index": server id is a reserved file name; its module is index-2.ts',
      'warning: server "nul": server id is a reserved file name; its module is nul-2.ts',
    ]);
    expect((await readdir(out)).sort()).toEqual(["Foo.ts", "foo-2.ts", "index-2.ts", "index.ts", "nul-2.ts"]);
    expect(await typecheck(out, [join(out, "index.ts")], "nodenext")).toBe("");
    const check = await runInProcess([...GENERATE, "--schema", bundle, "-o", out, "--check"]);
    expect(check.stdout).toBe(`${out} is up to date\n`);
    expect(check.code).toBe(0);
  }, 300_000);

  it("names every module it removes when another bundle is generated into the same folder", async () => {
    const dir = await outputDir("gen-removed");
    const first = join(dir, "first.json");
    const second = join(dir, "second.json");
    await writeFile(first, bundleText(0, "first", ["alpha", "beta"]));
    await writeFile(second, bundleText(0, "second", ["gamma"]));
    const out = join(dir, "out");
    // The earlier generation in this process: only the second run's lines are the claim.
    expect((await runInProcess([...GENERATE, "--schema", first, "-o", out])).code).toBe(0);
    const result = await runCli([...GENERATE, "--schema", second, "-o", out]);
    expect(result.code).toBe(0);
    expect(result.stdout.split("\n")).toEqual([
      `removed ${join(out, "alpha.ts")}: generated earlier for a server that is not in this bundle`,
      `removed ${join(out, "beta.ts")}: generated earlier for a server that is not in this bundle`,
      `Generated clients in ${out}: 1 server, 3 tools`,
      "Schema quality:",
      "  gamma: 3 tools, by source: declared 3 (100.0%); by quality: high 3 (100.0%)",
      "  total: 3 tools, by source: declared 3 (100.0%); by quality: high 3 (100.0%)",
      "Changes since the previous generation:",
      ...["get", "list", "put"].map((tool) => `  gamma/${tool}: new, declared`),
      ...["alpha", "beta"].flatMap((server) => ["get", "list", "put"].map((tool) => `  ${server}/${tool}: gone (was declared)`)),
      "",
    ]);
    expect((await readdir(out)).sort()).toEqual(["gamma.ts", "index.ts"]);
  });
});

describe("an interrupted generate", () => {
  it("leaves no temp files and either the old modules or the new ones, wherever SIGINT comes", async () => {
    const dir = await outputDir("gen-sigint");
    const out = join(dir, "out");
    const servers = 200;
    await writeFile(join(dir, "bundle-0.json"), bundleText(servers, "version-0"));
    // The first modules in this process: the signalled runs below are the claim.
    expect((await runInProcess([...GENERATE, "--quiet", "--schema", join(dir, "bundle-0.json"), "-o", out])).code).toBe(0);
    let current = "version-0";
    // The count of file system events in the output folder before the signal: the first temp file, a few hundred of them, most renamed.
    for (const [round, events] of [1, 100, 300, 500].entries()) {
      const marker = `version-${round + 1}`;
      const bundle = join(dir, `bundle-${round + 1}.json`);
      await writeFile(bundle, bundleText(servers, marker));
      const child = spawn(process.execPath, [CLI, ...GENERATE, "--quiet", "--schema", bundle, "-o", out], {
        stdio: ["ignore", "ignore", "pipe"],
      });
      let seen = 0;
      const watcher = watch(out, () => {
        if (++seen === events) child.kill("SIGINT");
      });
      const ended = await exited(child);
      watcher.close();
      if (ended.signal === null) expect(ended.code).toBe(0);
      else expect(ended.signal).toBe("SIGINT");
      const names = (await readdir(out)).sort();
      expect(names.filter((name) => !name.endsWith(".ts"))).toEqual([]);
      expect(names).toHaveLength(servers + 1);
      const modules = await Promise.all(names.filter((name) => name !== "index.ts").map((name) => readFile(join(out, name), "utf8")));
      const updated = modules.filter((text) => text.includes(`${marker} get`)).length;
      const kept = modules.filter((text) => text.includes(`${current} get`)).length;
      // All of them one way or the other.
      expect(updated === 0 ? kept : updated).toBe(servers);
      if (updated === servers) current = marker;
    }
  }, 600_000);

  it("removes the temp files an ended process left, and keeps other files", async () => {
    const dir = await outputDir("gen-stale-temp");
    const bundle = join(dir, "bundle.json");
    await writeFile(bundle, bundleText(0, "stale", ["alpha"]));
    const out = join(dir, "out");
    expect((await runInProcess([...GENERATE, "--schema", bundle, "-o", out])).code).toBe(0);
    const ended = spawn(process.execPath, ["-e", ""]);
    await exited(ended);
    const abandoned = `.alpha.ts.pmcp-${ended.pid}-0123456789ab.tmp`;
    await writeFile(join(out, abandoned), "partial");
    await writeFile(join(out, ".notes.tmp"), "mine");
    // Nothing changed: the re-run takes its shortcut and still cleans up.
    const again = await runCli([...GENERATE, "--schema", bundle, "-o", out]);
    expect(again.code).toBe(0);
    expect((await readdir(out)).sort()).toEqual([".notes.tmp", "alpha.ts", "index.ts"]);
  });
});
