import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "../../src/bundle/types.js";
import { renderClients } from "../../src/codegen/render.js";
import { loadTemplates } from "../../src/generate/template-files.js";
import { readCorpus } from "../helpers/corpus.js";
import { everyNth, full } from "../helpers/full-run.js";
import { outputDir, typecheck } from "../helpers/typescript.js";

const templates = await loadTemplates();

/**
 * The tools/list of real MCP servers published on npm, captured by `npm run corpus:rebuild`:
 * what users will feed the generator, including the 2 MB of mutually recursive definitions of
 * the Microsoft 365 server. The compile costs a second or more a server: by default every third
 * server and always ms-365, the largest; every server in a full run.
 */

let bundle: Bundle;

beforeAll(async () => {
  const corpus = await readCorpus();
  const sampled = new Set(everyNth(corpus.servers, 3));
  bundle = { ...corpus, servers: corpus.servers.filter((server) => sampled.has(server) || server.id === "ms-365") };
});

describe("the corpus of real servers", () => {
  it("generates and compiles under nodenext, strict, exactOptionalPropertyTypes and noUncheckedIndexedAccess", async () => {
    const dir = await outputDir("real-corpus");
    const started = performance.now();
    const { files } = renderClients(
      bundle,
      {
        source: "servers.bundle.json.gz",
        runtimeImport: "@pmcp-codegen/runtime",
        strictObjects: false,
        generatorVersion: "test",
        // Checked against their types in a full run; by default as users compile them.
        checkParsers: full,
      },
      templates,
    );
    const rendered = performance.now();
    for (const file of files) await writeFile(join(dir, file.path), file.content);
    expect(files.map((file) => file.path).sort()).toEqual([...bundle.servers.map((server) => `${server.id}.ts`), "index.ts"].sort());
    expect(await typecheck(dir, [join(dir, "index.ts")], "nodenext")).toBe("");
    const seconds = (to: number, from: number) => ((to - from) / 1000).toFixed(1);
    console.info(`real corpus: generated in ${seconds(rendered, started)} s, compiled in ${seconds(performance.now(), rendered)} s`);
  }, 300_000);
});
