import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { observationPath } from "@pmcp-codegen/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inferObservations, saveLearnedBundle } from "../../dist/commands/shared/infer-observations.js";
import { writeInferred } from "../../dist/learn/write-inferred.js";
import { observationLogText } from "../helpers/observation-log.js";

// Every writer of a bundle (serve exec --learn, schema infer, dev) takes its one lock, and merges what it
// learned into the file as it is then: a block another process wrote since it read the file stays.

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-bundle-writers-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const QUIET = { quiet: true, json: false };

/** A bundle of one server, `learning`, whose `count` and `news` tools declare no output schema. */
async function writeBundle(path: string): Promise<void> {
  const tool = (name: string) => ({ name, inputSchema: { type: "object", properties: {} } });
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, `${JSON.stringify({ version: "1.0", servers: [{ id: "learning", tools: [tool("count"), tool("news")] }] })}\n`);
}

/** A log of `tool`'s ten results `{ "<tool>": i }`, in a folder of its own. */
async function writeLog(logs: string, tool: string): Promise<void> {
  const path = observationPath(logs, "learning", tool);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(
    path,
    observationLogText(
      "learning",
      tool,
      Array.from({ length: 10 }, (_, index) => ({ [tool]: index })),
    ),
  );
}

const learnedTools = async (bundle: string) =>
  (JSON.parse(await readFile(bundle, "utf8")) as { servers: { inferred?: { tool: string }[] }[] }).servers[0]!.inferred?.map(
    (block) => block.tool,
  );

describe("writers of one bundle", () => {
  it("schema infer writes into the bundle as it is then: a block written since it read the file stays", async () => {
    const bundle = join(dir, "infer/mcp-bundle.json");
    await writeBundle(bundle);
    await writeLog(join(dir, "infer/count-logs"), "count");
    await writeLog(join(dir, "infer/news-logs"), "news");
    // schema infer reads the bundle and learns count…
    const inferred = await inferObservations(QUIET, [bundle], join(dir, "infer/count-logs"));
    // …while serve exec --learn writes what it learned of news…
    const other = await inferObservations(QUIET, [bundle], join(dir, "infer/news-logs"));
    expect(await writeInferred(bundle, other.result.bundle, "--schema")).toBe(true);
    // …and schema infer writes last.
    await saveLearnedBundle(inferred);
    expect(await learnedTools(bundle)).toEqual(["count", "news"]);
  });
});
