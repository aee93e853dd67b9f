import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CompositionClient } from "@pmcp-codegen/runtime";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import type { BundleServer, Tool } from "../../src/bundle/types.js";
import { renderClients } from "../../src/codegen/render.js";
import { loadTemplates } from "../../src/generate/template-files.js";
import { runs } from "../helpers/full-run.js";
import { PAYLOADS } from "../helpers/hostile-strings.js";
import { outputDir, typecheckCases } from "../helpers/typescript.js";

const templates = await loadTemplates();

declare global {
  // eslint-disable-next-line no-var
  var __pwned: unknown;
}

const options = {
  source: "hostile */ bundle\n.json",
  runtimeImport: "@pmcp-codegen/runtime",
  strictObjects: false,
  generatorVersion: "test",
};

/** Imports a compiled module, instantiates its client and runs every parser it exports. */
async function exercise(path: string, values: readonly unknown[]): Promise<void> {
  const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  const client = new CompositionClient({ servers: {} });
  for (const [name, value] of Object.entries(module)) {
    if (typeof value === "function") new (value as new (client: CompositionClient) => object)(client);
    else if (name.endsWith("Schema")) for (const sample of values) (value as z.ZodType).safeParse(sample);
  }
}

function hostileTool(payload: string, index: number): Tool[] {
  const schema = {
    type: "object",
    title: payload,
    description: payload,
    properties: {
      [payload]: { type: "string", description: payload, default: payload, pattern: payload.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&") },
      choice: { enum: [payload, `${payload}2`], description: payload },
      fixed: { const: payload },
      nested: { const: { [payload]: [payload] } },
      __proto__: { type: "string" },
      constructor: { type: "number" },
    },
    required: [payload, "__proto__"],
  };
  return [
    {
      name: payload,
      title: payload,
      description: payload,
      inputSchema: schema,
      outputSchema: schema,
      annotations: { "pmcp:outputTypeName": `${payload}${index}`, title: payload, readOnlyHint: true },
      // Tool tags reach the method's doc as a Tags line.
      _meta: { "pmcp/category": payload, "pmcp/phase": payload, "pmcp/popularity": index, "pmcp/rateLimit": payload },
    },
  ];
}

/** A tool typed by inference whose every field, named by a payload, is of low consistency: the names reach its docs. */
function learnedTool(): Pick<BundleServer, "tools" | "inferred"> {
  const half = { anyOf: [{ type: "string" }, { type: "integer" }] };
  return {
    tools: [{ name: "learned", inputSchema: { type: "object" } }],
    inferred: [
      {
        tool: "learned",
        schema: { type: "object", properties: Object.fromEntries(PAYLOADS.map((payload) => [payload, half])) },
        observations: 2,
        seen: 2,
        firstSeen: "a",
        lastSeen: "b",
        redacted: false,
        consistency: 0,
        quality: "low",
        fields: PAYLOADS.map((payload) => ({ path: `/${payload}`, presence: 1, types: { integer: 1, string: 1 } })),
      },
    ],
  };
}

/** Bundles of tools whose every string is built from payloads and the pieces of code they could break out of. */
function hostileBundles(count: number): Tool[][] {
  const piece = fc.constantFrom(
    ...PAYLOADS,
    "*/",
    "/*",
    "`",
    "${",
    '"',
    "'",
    "\\",
    "\n",
    "\u2028",
    "__proto__",
    "constructor",
    "then",
    "class",
    "0",
    "a",
    "-",
    " ",
    "$",
    "\u0000",
    "Schema",
    "Args",
  );
  const text = fc.array(piece, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(""));
  const leaf = fc.oneof(
    fc.record({ type: fc.constant("string"), description: text, default: text }),
    fc.record({ enum: fc.array(fc.oneof(text, fc.integer(), fc.constant(null)), { minLength: 1, maxLength: 3 }) }),
    fc.record({ const: fc.oneof(text, fc.dictionary(text, text, { maxKeys: 2 })) }),
    fc.record({ type: fc.constant("string"), pattern: text }),
    fc.record({ type: fc.constant("integer"), title: text }),
  );
  const schema = fc.record({
    type: fc.constant("object"),
    title: text,
    description: text,
    properties: fc.dictionary(text, leaf, { maxKeys: 4 }),
    required: fc.array(text, { maxLength: 2 }),
  });
  const tool = fc.record({
    name: text,
    title: text,
    description: text,
    inputSchema: schema,
    outputSchema: schema,
    annotations: fc.record({ "pmcp:outputTypeName": text, readOnlyHint: fc.boolean() }),
  });
  return fc.sample(fc.array(tool, { minLength: 1, maxLength: 3 }), { numRuns: count, seed: 42 }) as Tool[][];
}

let root: string;
let pointsModule: string;
/** 500 in a full run: with the parsers' types, 2.5 MB of TypeScript for the compiler. */
const BUNDLES = runs(500, 60);
const bundles = hostileBundles(BUNDLES);
let diagnostics: Record<"points" | "bundles", string>;

/** Both cases, each in its own folder of `root`, compiled with tsc --strict in one run that emits JavaScript into `root/js`. */
beforeAll(async () => {
  root = await outputDir("injection");
  const write = async (folder: string, files: readonly { path: string; content: string }[]) => {
    await mkdir(join(root, folder), { recursive: true });
    for (const file of files) await writeFile(join(root, folder, file.path), file.content);
  };
  const { files } = renderClients(
    { version: "1.0", servers: [{ ...learnedTool(), id: "hostile", tools: PAYLOADS.flatMap(hostileTool).concat(learnedTool().tools) }] },
    options,
    templates,
  );
  await write("points", files);
  pointsModule = files.find((file) => file.path === "hostile.ts")!.content;
  const modules: string[] = [];
  for (const [index, tools] of bundles.entries()) {
    const rendered = renderClients({ version: "1.0", servers: [{ id: `b${index}`, tools }] }, options, templates);
    const file = rendered.files.find((candidate) => candidate.path === `b${index}.ts`)!;
    await write("bundles", [file]);
    modules.push(join(root, "bundles", file.path));
  }
  diagnostics = await typecheckCases(root, { points: [join(root, "points/index.ts")], bundles: modules }, "nodenext", join(root, "js"));
}, 600_000);

describe("untrusted strings stay data", () => {
  it("every injection point, with every payload: the output compiles and never runs the payload", async () => {
    globalThis.__pwned = undefined;
    // The payload's text survives, as data: in string literals and neutralised comments.
    expect(pointsModule).toContain(JSON.stringify(PAYLOADS[1]));
    expect(pointsModule).toContain(" * Low consistency: /*\\/ globalThis.__pwned = 'comment'; /* 50 % (number 1, string 1).\n");
    expect(pointsModule).not.toMatch(/\n\s*globalThis\.__pwned/);
    expect(diagnostics.points).toBe("");
    const values = [{}, { fixed: PAYLOADS[0], __proto__: "x" }, { constructor: 1 }, JSON.parse('{"__proto__": {"polluted": true}}')];
    await exercise(join(root, "js/points/hostile.js"), values);
    expect(globalThis.__pwned).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it(`property-based: ${BUNDLES} hostile bundles compile in one tsc run and never run injected code`, async () => {
    globalThis.__pwned = undefined;
    expect(bundles).toHaveLength(BUNDLES);
    expect(diagnostics.bundles).toBe("");
    const values = fc.sample(fc.jsonValue(), { numRuns: 5, seed: 7 });
    for (const index of bundles.keys()) await exercise(join(root, `js/bundles/b${index}.js`), values);
    expect(globalThis.__pwned).toBeUndefined();
  });
});
