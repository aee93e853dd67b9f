import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import * as lockfile from "proper-lockfile";
import { describe, expect, it } from "vitest";
import { lockForReplace } from "../../packages/runtime/dist/fs/replace-lock.js";
import { ROOT } from "../helpers/cli.js";

describe("the lock of a file several processes replace", () => {
  it("is taken at once from a holder killed while it held it, though the lock is not stale yet", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-lock-"));
    const path = join(dir, "log.jsonl");
    await writeFile(path, "");
    const module = pathToFileURL(join(ROOT, "packages/runtime/dist/fs/replace-lock.js")).href;
    const holder = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `import * as lockfile from "proper-lockfile"; import { lockForReplace } from ${JSON.stringify(module)};
         await lockForReplace(lockfile, ${JSON.stringify(path)}); console.log("locked"); setInterval(() => {}, 60_000);`,
      ],
      { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] },
    );
    const [line] = (await once(createInterface({ input: holder.stdout }), "line")) as [string];
    expect(line).toBe("locked");
    holder.kill("SIGKILL");
    await once(holder, "exit");
    // Not stale: proper-lockfile alone would wait out its 10 s.
    await expect(lockfile.lock(path, { stale: 10_000, retries: 0, realpath: false, lockfilePath: `${path}.lock` })).rejects.toMatchObject({
      code: "ELOCKED",
    });
    const release = await lockForReplace(lockfile, path);
    expect(await readFile(`${path}.lock-owner`, "utf8")).toBe(`${hostname()}\n${process.pid}\n`);
    await release();
    expect((await readdir(dir)).sort()).toEqual(["log.jsonl"]);
  });
});
