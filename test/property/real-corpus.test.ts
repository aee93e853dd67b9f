import { readFile } from "node:fs/promises";
import { gunzipSync } from "node:zlib";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "../../src/bundle/types.js";
import { CORPUS_BUNDLE, type CorpusVersions, readCorpus, readCorpusVersions } from "../helpers/corpus.js";

/**
 * The tools/list of real MCP servers published on npm, captured by `npm run corpus:rebuild`:
 * what users will feed the generator, including the 2 MB of mutually recursive definitions of
 * the Microsoft 365 server.
 */

let bundle: Bundle;
let versions: CorpusVersions;

beforeAll(async () => {
  bundle = await readCorpus();
  versions = await readCorpusVersions();
});

describe("the corpus of real servers", () => {
  it("holds every server the capture listed, with its tools and output schemas, and the Microsoft 365 server", () => {
    const listed = (servers: readonly { id: string; tools: number; outputSchemas: number }[]) =>
      servers.map(({ id, tools, outputSchemas }) => ({ id, tools, outputSchemas })).sort((a, b) => a.id.localeCompare(b.id));
    const read = bundle.servers.map((server) => ({
      id: server.id,
      tools: server.tools.length,
      outputSchemas: server.tools.filter((tool) => tool.outputSchema !== undefined).length,
    }));
    expect(listed(read)).toEqual(listed(versions.servers));
    expect(bundle.servers.length).toBeGreaterThanOrEqual(50);
    expect(bundle.servers.map((server) => server.id)).toContain("ms-365");
    expect(read.reduce((sum, server) => sum + server.outputSchemas, 0)).toBeGreaterThanOrEqual(100);
  });

  it("reads back through the bundle reader exactly as the servers listed it", async () => {
    const raw = JSON.parse(gunzipSync(await readFile(CORPUS_BUNDLE)).toString("utf8")) as unknown;
    expect(bundle).toEqual(raw);
  });
});
