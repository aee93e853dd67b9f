import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { Bundle, BundleServer } from "../../src/bundle/types.js";
import { planServerModule } from "../../src/codegen/plan.js";
import { renderClients } from "../../src/codegen/render.js";
import { LiveParsers } from "../../src/exec/live-parser.js";
import { loadTemplates } from "../../src/generate/template-files.js";
import { readCorpus } from "../helpers/corpus.js";
import { everyNth, runs } from "../helpers/full-run.js";
import { samples } from "../helpers/samples.js";
import { outputDir } from "../helpers/typescript.js";

const templates = await loadTemplates();
const ROOT = join(import.meta.dirname, "..", "..");

/**
 * Every output schema at hand: the hand-written corpus, the repo's own bundle, the real servers' corpus;
 * by default every sixth of them, all in a full run.
 */
async function outputSchemas(): Promise<{ name: string; schema: unknown }[]> {
  const entries: { name: string; schema: unknown }[] = [];
  for (const file of ["schemas.json", "codegen-only.json"]) {
    const corpus = JSON.parse(await readFile(join(ROOT, "test/corpus", file), "utf8")) as Record<string, unknown>;
    for (const [name, schema] of Object.entries(corpus)) entries.push({ name, schema });
  }
  const own = JSON.parse(await readFile(join(ROOT, "schemas/mcp-bundle.json"), "utf8")) as Bundle;
  for (const bundle of [own, await readCorpus()])
    for (const server of bundle.servers)
      for (const tool of server.tools)
        if (tool.outputSchema !== undefined) entries.push({ name: `${server.id}/${tool.name}`, schema: tool.outputSchema });
  return everyNth(entries, 6);
}

/** What a parser makes of a value: its verdict and, when it passes, the value's JSON (so own `__proto__` keys count). */
function verdict(parser: z.ZodType, value: unknown): string {
  const parsed = parser.safeParse(value);
  return parsed.success ? `ok ${JSON.stringify(parsed.data)}` : "fails";
}

/** Samples per schema: 25 in a full run. */
const RUNS = runs(25, 10);

describe("code mode's live parsers", () => {
  it.each([false, true])("judge every sample as the generated module does (strictObjects %s)", async (strictObjects) => {
    const entries = await outputSchemas();
    const server: BundleServer = {
      id: "agreement",
      tools: entries.map((entry, index) => ({
        name: `s${index}`,
        inputSchema: { type: "object" },
        outputSchema: entry.schema as Record<string, unknown>,
        annotations: { "pmcp:outputTypeName": `S${index}` },
      })),
    };
    const options = { source: "agreement", runtimeImport: "@pmcp-codegen/runtime", generatorVersion: "test", strictObjects };
    const folder = await outputDir(`live-parsers-${strictObjects}`);
    for (const file of renderClients({ version: "1.0", servers: [server] }, options, templates).files)
      await writeFile(join(folder, file.path), file.content);
    const generated = (await import(join(folder, "agreement.ts"))) as Record<string, z.ZodType>;
    const plan = planServerModule(server, { strictObjects, minQuality: "low" });
    const live = new LiveParsers(plan.definitions.map((definition) => [definition.name, definition.parserTree]));
    let compared = 0;
    const outcomes = new Set<string>();
    for (const [index, tool] of plan.tools.entries()) {
      const { name, tree } = tool.parser!;
      const printed = generated[name]!;
      const built = live.build(tree);
      fc.assert(
        fc.property(samples(entries[index]!.schema), (value) => {
          const expected = verdict(printed, value);
          outcomes.add(expected === "fails" ? "fails" : "ok");
          compared++;
          return verdict(built, value) === expected;
        }),
        {
          numRuns: RUNS,
          seed: 20261126 + index,
          endOnFailure: true,
          reporter: (run) => {
            if (run.failed)
              throw new Error(`${entries[index]!.name}: live and generated disagree on ${JSON.stringify(run.counterexample?.[0])}`);
          },
        },
      );
    }
    expect(compared).toBe(plan.tools.length * RUNS);
    expect([...outcomes].sort()).toEqual(["fails", "ok"]);
  });

  it("keep unknown keys unless strict, and check a declared __proto__ as data", () => {
    const server: BundleServer = {
      id: "s",
      tools: [
        {
          name: "closed",
          inputSchema: { type: "object" },
          outputSchema: { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false },
        },
        {
          name: "proto",
          inputSchema: { type: "object" },
          outputSchema: JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string"}},"required":["__proto__"]}'),
        },
      ],
    };
    const judge = (strictObjects: boolean) => {
      const plan = planServerModule(server, { strictObjects, minQuality: "low" });
      const live = new LiveParsers([]);
      const [closed, proto] = plan.tools.map((tool) => live.build(tool.parser!.tree));
      return [
        verdict(closed!, { id: "a", added: 1 }),
        verdict(proto!, JSON.parse('{"__proto__":"kept"}')),
        verdict(proto!, {}),
        verdict(proto!, JSON.parse('{"__proto__":{"polluted":true}}')),
      ];
    };
    expect(judge(false)).toEqual(['ok {"id":"a","added":1}', 'ok {"__proto__":"kept"}', "fails", "fails"]);
    expect(judge(true)).toEqual(["fails", 'ok {"__proto__":"kept"}', "fails", "fails"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
