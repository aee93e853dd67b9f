import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { Bundle, Tool } from "../src/bundle/types.js";
import { renderClients } from "../src/codegen/render.js";
import { loadTemplates } from "../src/codegen/templates.js";
import { CompositionClient } from "../src/runtime/index.js";
import { ROOT } from "./helpers/cli.js";
import { outputDir } from "./helpers/typescript.js";

const templates = await loadTemplates();

/**
 * Schemas come from servers we do not control: no string in a bundle may become code.
 * Every payload below, if it ever ran, would set `globalThis.__pwned`.
 */

const PAYLOADS = [
  "*/ globalThis.__pwned = 'comment'; /*",
  '"; globalThis.__pwned = "string"; //',
  "'; globalThis.__pwned = 'single'; //",
  "` + (globalThis.__pwned = 'template') + `",
  "${globalThis.__pwned = 'interpolation'}",
  "\u2028globalThis.__pwned = 'u2028';\u2029",
  "\n globalThis.__pwned = 'newline'; //",
  "\\\"); globalThis.__pwned = 'backslash'; //",
  "</script><script>globalThis.__pwned = 'html'</script>",
];

declare global {
  // eslint-disable-next-line no-var
  var __pwned: unknown;
}

const options = {
  source: "hostile */ bundle\n.json",
  runtimeImport: "pmcp-codegen/runtime",
  strictObjects: false,
  generatorVersion: "test",
};

/** Compiles the folder's modules with tsc --strict (one run) and emits JavaScript next to them. */
function compile(dir: string, files: string[]): Promise<string> {
  const config = join(dir, "tsconfig.json");
  return writeFile(
    config,
    JSON.stringify({
      compilerOptions: {
        strict: true,
        target: "es2022",
        module: "nodenext",
        moduleResolution: "nodenext",
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        skipLibCheck: true,
        types: [],
        rootDir: dir,
        outDir: join(dir, "js"),
      },
      files,
    }),
  ).then(
    () =>
      new Promise((resolve) => {
        execFile(
          process.execPath,
          [join(ROOT, "node_modules/typescript/bin/tsc"), "-p", config],
          { maxBuffer: 64 * 1024 * 1024 },
          (_error, stdout) => resolve(stdout.trim()),
        );
      }),
  );
}

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
    },
  ];
}

describe("untrusted strings stay data", () => {
  it("every injection point, with every payload: the output compiles and never runs the payload", async () => {
    globalThis.__pwned = undefined;
    const dir = await outputDir("injection");
    const bundle: Bundle = { version: "1.0", servers: [{ id: "hostile", tools: PAYLOADS.flatMap(hostileTool) }] };
    const { files } = renderClients(bundle, options, templates);
    for (const file of files) await writeFile(join(dir, file.path), file.content);
    const module = files.find((file) => file.path === "hostile.ts")!.content;
    // The payload's text survives, as data: in string literals and neutralised comments.
    expect(module).toContain(JSON.stringify(PAYLOADS[1]));
    expect(module).not.toMatch(/\n\s*globalThis\.__pwned/);
    expect(await compile(dir, [join(dir, "index.ts")])).toBe("");
    const values = [{}, { fixed: PAYLOADS[0], __proto__: "x" }, { constructor: 1 }, JSON.parse('{"__proto__": {"polluted": true}}')];
    await exercise(join(dir, "js/hostile.js"), values);
    expect(globalThis.__pwned).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("property-based: 500 hostile bundles compile in one tsc run and never run injected code", async () => {
    globalThis.__pwned = undefined;
    const dir = await outputDir("hostile-bundles");
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
    const bundles = fc.sample(fc.array(tool, { minLength: 1, maxLength: 3 }), { numRuns: 500, seed: 42 });

    const modules: string[] = [];
    for (const [index, tools] of bundles.entries()) {
      const bundle: Bundle = { version: "1.0", servers: [{ id: `b${index}`, tools: tools as Tool[] }] };
      const { files } = renderClients(bundle, options, templates);
      const file = files.find((candidate) => candidate.path === `b${index}.ts`)!;
      const path = join(dir, file.path);
      await writeFile(path, file.content);
      modules.push(path);
    }
    expect(modules).toHaveLength(500);
    await mkdir(join(dir, "js"), { recursive: true });
    expect(await compile(dir, modules)).toBe("");
    const values = fc.sample(fc.jsonValue(), { numRuns: 5, seed: 7 });
    for (const index of bundles.keys()) await exercise(join(dir, `js/b${index}.js`), values);
    expect(globalThis.__pwned).toBeUndefined();
  }, 600_000);

  it("hostile server ids never reach a file name: the bundle is rejected", async () => {
    const { parseSchemaFile } = await import("../src/bundle/read.js");
    const text = JSON.stringify({ version: "1.0", servers: [{ id: "../../etc/x", tools: [] }] });
    expect(() => parseSchemaFile("b.json", text)).toThrow(/server "\.\.\/\.\.\/etc\/x" id: a server id is/);
  });
});
