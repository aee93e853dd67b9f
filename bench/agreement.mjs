// Differential agreement with Ajv (2020-12 class, draft-07 class for draft-04 to -07 schemas, with
// ajv-formats) on the corpus, per construct: pmcp's generated parsers (strict objects) and code mode's
// parsers built live from the same plan, against json-schema-to-zod (after dereferencing with json-schema-ref-parser) and zod 4's z.fromJSONSchema,
// on the same samples in the same run. A generator that cannot build a parser disagrees on every sample.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import $RefParser from "@apidevtools/json-schema-ref-parser";
import { Ajv } from "ajv";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import fc from "fast-check";
import { createJiti } from "jiti";
import { jsonSchemaToZod } from "json-schema-to-zod";
import { z } from "zod";
// json-schema-to-zod writes zod 3 code: it runs against the zod 3 API that zod 4 ships, as its users would.
import { z as z3 } from "zod/v3";
import { planServerModule } from "../dist/codegen/plan.js";
import { renderClients } from "../dist/codegen/render.js";
import { LiveParsers } from "../dist/exec/live-parser.js";
import { loadTemplates } from "../dist/generate/template-files.js";
import { walkSchemas } from "../dist/json-schema/traverse.js";

const templates = await loadTemplates();

const SAMPLES = 100;
const root = fileURLToPath(new URL("..", import.meta.url));
const jiti = createJiti(import.meta.url);

/** The keywords reported, in this order; the corpus's other keys only annotate or are unknown. */
const CONSTRUCTS = [
  "type",
  "enum",
  "const",
  "properties",
  "required",
  "additionalProperties",
  "patternProperties",
  "propertyNames",
  "minProperties",
  "maxProperties",
  "dependentRequired",
  "dependentSchemas",
  "dependencies",
  "items",
  "prefixItems",
  "contains",
  "minItems",
  "maxItems",
  "uniqueItems",
  "unevaluatedProperties",
  "unevaluatedItems",
  "allOf",
  "anyOf",
  "oneOf",
  "not",
  "if",
  "$ref",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
];

/** Every output schema: the hand-written corpus, and the captured servers' corpus when present. */
async function corpus() {
  const entries = ["schemas.json", "codegen-only.json"].flatMap((file) =>
    Object.entries(JSON.parse(readFileSync(join(root, "test/corpus", file), "utf8"))).map(([name, schema]) => ({
      name,
      schema,
      group: "(hand-written)",
    })),
  );
  const helper = join(root, "test/helpers/corpus.ts");
  if (existsSync(helper)) {
    const { readCorpus } = await jiti.import(helper);
    const bundle = await readCorpus();
    for (const server of bundle.servers) {
      for (const tool of server.tools) {
        if (tool.outputSchema !== undefined)
          entries.push({ name: `${server.id}/${tool.name}`, schema: tool.outputSchema, group: "(real servers)" });
      }
    }
  }
  return entries;
}

function ajvFor(schema) {
  const draft07 = typeof schema.$schema === "string" && /draft-0[4-7]/.test(schema.$schema);
  const ajv = draft07 ? new Ajv({ strict: false, logger: false }) : new Ajv2020({ strict: false, logger: false });
  addFormats.default(ajv);
  try {
    return ajv.compile(schema);
  } catch {
    return undefined;
  }
}

/** pmcp's parsers for all entries at once: one generated module, loaded through jiti, and code mode's built from its plan. */
async function ourParsers(entries, dir) {
  const bundle = {
    version: "1.0",
    servers: [
      {
        id: "agreement",
        tools: entries.map((entry, index) => ({
          name: `s${index}`,
          inputSchema: { type: "object" },
          outputSchema: entry.schema,
          annotations: { "pmcp:outputTypeName": `S${index}` },
        })),
      },
    ],
  };
  const options = { source: "agreement", runtimeImport: "@pmcp-codegen/runtime", generatorVersion: "bench", strictObjects: true };
  const result = renderClients(bundle, options, templates);
  for (const file of result.files) writeFileSync(join(dir, file.path), file.content);
  const module = await jiti.import(join(dir, "agreement.ts"));
  const plan = planServerModule(bundle.servers[0], { strictObjects: true, minQuality: "low" });
  const live = new LiveParsers(plan.definitions.map((definition) => [definition.name, definition.parserTree]));
  return {
    generated: entries.map((_entry, index) => module[`S${index}Schema`]),
    live: plan.tools.map((tool) => live.build(tool.parser.tree)),
  };
}

async function jsonSchemaToZodParser(schema) {
  try {
    const dereferenced = await $RefParser.dereference(structuredClone(schema), {
      resolve: { external: false },
      dereference: { circular: "ignore" },
    });
    return new Function("z", `return ${jsonSchemaToZod(dereferenced)};`)(z3);
  } catch {
    return undefined;
  }
}

function fromJsonSchemaParser(schema) {
  try {
    return z.fromJSONSchema(schema);
  } catch {
    return undefined;
  }
}

function verdict(parser, value) {
  if (parser === undefined) return undefined;
  try {
    return parser.safeParse(value).success;
  } catch {
    return undefined;
  }
}

function constructsOf(schema) {
  const found = new Set();
  for (const { node } of walkSchemas(schema)) for (const key of Object.keys(node)) if (CONSTRUCTS.includes(key)) found.add(key);
  return found;
}

const GROUPS = ["(all)", "(real servers)", "(hand-written)"];
const order = (row) => (GROUPS.includes(row) ? GROUPS.indexOf(row) - GROUPS.length : CONSTRUCTS.indexOf(row));

const percent = (agreed, total) => (total === 0 ? "-" : `${((100 * agreed) / total).toFixed(1)}%`);

export async function benchAgreement() {
  const dir = join(root, "bench/.output-agreement");
  mkdirSync(dir, { recursive: true });
  try {
    const { samples } = await jiti.import(join(root, "test/helpers/samples.ts"));
    const entries = (await corpus()).filter((entry) => typeof entry.schema === "object" && entry.schema !== null);
    const ours = await ourParsers(entries, dir);
    const peers = ["pmcp", "pmcp code mode", "json-schema-to-zod", "z.fromJSONSchema"];
    const none = () => peers.map(() => 0);
    const rows = new Map([["(all)", { schemas: 0, samples: 0, agreed: none() }]]);
    // Per peer: schemas it built no parser for, and its agreement on the samples of the others.
    const built = peers.map(() => ({ failed: 0, samples: 0, agreed: 0 }));
    for (const [index, entry] of entries.entries()) {
      const ajv = ajvFor(entry.schema);
      if (ajv === undefined) continue;
      const parsers = [
        ours.generated[index],
        ours.live[index],
        await jsonSchemaToZodParser(entry.schema),
        fromJsonSchemaParser(entry.schema),
      ];
      const values = fc.sample(samples(entry.schema), { numRuns: SAMPLES, seed: 20261123 + index });
      const agreed = none();
      for (const value of values) {
        const expected = ajv(value);
        parsers.forEach((parser, peer) => {
          if (verdict(parser, value) === expected) agreed[peer]++;
        });
      }
      parsers.forEach((parser, peer) => {
        if (parser === undefined) built[peer].failed++;
        else {
          built[peer].samples += values.length;
          built[peer].agreed += agreed[peer];
        }
      });
      for (const construct of ["(all)", entry.group, ...constructsOf(entry.schema)]) {
        const row = rows.get(construct) ?? { schemas: 0, samples: 0, agreed: none() };
        row.schemas++;
        row.samples += values.length;
        agreed.forEach((count, peer) => {
          row.agreed[peer] += count;
        });
        rows.set(construct, row);
      }
    }
    console.log(`\nAgreement with Ajv, ${SAMPLES} samples per schema (valid and mutated), by construct:`);
    const header = ["construct", "schemas", "samples", ...peers];
    const table = [...rows.entries()]
      .sort(([a], [b]) => order(a) - order(b))
      .map(([construct, row]) => [
        construct,
        String(row.schemas),
        String(row.samples),
        ...row.agreed.map((count) => percent(count, row.samples)),
      ]);
    const widths = header.map((title, column) => Math.max(title.length, ...table.map((line) => line[column].length)));
    for (const line of [header, ...table]) console.log(line.map((cell, column) => cell.padEnd(widths[column])).join("  "));
    for (const [peer, name] of peers.entries()) {
      const { failed, samples, agreed } = built[peer];
      console.log(`${name}: no parser for ${failed} of ${entries.length} schemas; on the others ${percent(agreed, samples)}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchAgreement();
