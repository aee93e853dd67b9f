import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import type { z } from "zod";
import { renderClients } from "../../src/codegen/render.js";
import { loadTemplates } from "../../src/generate/template-files.js";
import { agreeWithAjv } from "../helpers/ajv-agreement.js";
import { corpusBundle, corpusEntries, type Entry } from "../helpers/corpus-entries.js";
import { everyNth, runs } from "../helpers/full-run.js";
import { COMPILE_BUDGET_MS, outputDir, typecheck } from "../helpers/typescript.js";

const templates = await loadTemplates();

/**
 * The generator's exactness, proven on a corpus: hand-written MCP-typical schemas
 * (Pydantic, PMCP, zod-published, edge cases) plus every schema of the fixture servers
 * and the three reference servers, each made the output schema of one tool.
 */

/** The entries whose types the proof also compares with a type written here. */
const PROOF_NAMES = [
  "zod4-record",
  "pattern-properties-closed",
  "property-names-checked",
  "unevaluated-allof",
  "unknown-keyword-beside-properties",
] as const;

let dir: string;
let entries: Entry[];
let warned: Set<number>;
/** The entries the compile-time proof covers: in a full run every one. */
let proven: number[];

beforeAll(async () => {
  dir = await outputDir("corpus");
  // The fixture and reference servers, exported once per run by the global setup; read only.
  entries = await corpusEntries(inject("referenceBundle"));
  const options = { source: "corpus", runtimeImport: "@pmcp-codegen/runtime", generatorVersion: "test" };
  const write = async (folder: string, files: readonly { path: string; content: string }[]) => {
    await mkdir(join(dir, folder), { recursive: true });
    for (const file of files) await writeFile(join(dir, folder, file.path), file.content);
  };
  // Every entry, as `pmcp generate --strict-objects` writes it, for the comparison with Ajv.
  const compared = renderClients(corpusBundle(entries), { ...options, strictObjects: true }, templates);
  await write("compared", compared.files);
  warned = new Set(compared.warnings.map((warning) => Number(warning.tool.slice(1))));
  // Parsers left to the compiler, both ways, for the proof that they agree with the types: unless in a full
  // run, every other hand-written schema (and those the proof names) and every third of the servers'.
  const indices = (server: boolean) => entries.flatMap((entry, index) => (entry.name.includes("/") === server ? [index] : []));
  const named = new Set(PROOF_NAMES.map((name) => entries.findIndex((entry) => entry.name === name)));
  const chosen = new Set([...everyNth(indices(false), 2), ...named, ...everyNth(indices(true), 3)]);
  proven = entries.flatMap((_entry, index) => (chosen.has(index) ? [index] : []));
  const sampled = corpusBundle(entries, (_entry, index) => proven.includes(index));
  for (const strictObjects of [false, true]) {
    const result = renderClients(sampled, { ...options, strictObjects, checkParsers: true }, templates);
    await write(strictObjects ? "strict" : "lenient", result.files);
  }
});

describe("the corpus", () => {
  it("covers the schemas the issue names", () => {
    const names = entries.map((entry) => entry.name);
    for (const expected of [
      "typed-fixture-server/get_stock/output",
      "listing-fixture/class/input",
      "listing-fixture/delete-record/legacy",
      "memory-server/read_graph/output",
      "secure-filesystem-server/read_text_file/output",
      "mcp-servers-everything/get-structured-content/output",
      "pydantic-weather",
      "recursive-tree",
    ]) {
      expect(names).toContain(expected);
    }
    expect(entries.length).toBeGreaterThan(80);
  });

  it(
    "emitted types and z.infer of the emitted parsers are mutually assignable (compile-time proof; half the hand-written schemas and a third of the servers' unless in a full run)",
    async () => {
      const lines = [
        'import type { z } from "zod";',
        'import type * as L from "./lenient/corpus.js";',
        'import type * as S from "./strict/corpus.js";',
      ];
      for (const index of proven) {
        for (const module of ["L", "S"]) {
          const type = `${module}.S${index}`;
          const inferred = `z.infer<typeof ${module}.S${index}Schema>`;
          lines.push(`export function check${module}${index}(a: ${type}, b: ${inferred}): [${inferred}, ${type}] { return [a, b]; }`);
        }
      }
      // Keywords checked at run time keep the static type of what they constrain.
      const index = (name: (typeof PROOF_NAMES)[number]) => entries.findIndex((entry) => entry.name === name);
      lines.push(
        "type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;",
        `export const zodRecord: Equals<S.S${index("zod4-record")}["fields"], { [key: string]: number }> = true;`,
        `export const patterns: Equals<S.S${index("pattern-properties-closed")}, { id?: string } & { [key: string]: string | number }> = true;`,
        `export const keyNames: Equals<S.S${index("property-names-checked")}, { [key: string]: number }> = true;`,
        `export const unevaluated: Equals<S.S${index("unevaluated-allof")}, { a?: string; b?: number }> = true;`,
        `export const beside: Equals<S.S${index("unknown-keyword-beside-properties")}, { name: string }> = true;`,
      );
      const checks = join(dir, "checks.ts");
      await writeFile(checks, `${lines.join("\n")}\n`);
      expect(await typecheck(dir, [checks, join(dir, "lenient/index.ts"), join(dir, "strict/index.ts")], "nodenext")).toBe("");
    },
    COMPILE_BUDGET_MS,
  );

  it("parsers accept and reject exactly what Ajv does (2020-12 or draft-07 class, with formats)", async () => {
    const parsers = (await import(join(dir, "compared/corpus.ts"))) as Record<string, z.ZodType>;
    // 120 samples of each hand-written schema, enough to reach both sides of its boundaries; of the servers' (named
    // server/tool/part), a quarter unless in a full run.
    const { compared, valid, invalid, oneSided } = agreeWithAjv(entries, parsers, warned, (entry) =>
      entry.name.includes("/") ? runs(120, 30) : 120,
    );
    expect(compared).toBeGreaterThan(entries.length - 5);
    // The samples reach both sides of every boundary, not only one: of every hand-written schema.
    expect(oneSided.filter((name) => !name.includes("/"))).toEqual([]);
    expect(valid).toBeGreaterThan(2000);
    expect(invalid).toBeGreaterThan(2000);
  });
});
