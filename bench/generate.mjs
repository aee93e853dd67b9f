// Generation against json-schema-to-typescript plus json-schema-to-zod over the same schemas, in this run:
// a synthetic bundle of 1,000 tools in process, then 3,000 larger tools and the real-server corpus as whole processes.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import $RefParser from "@apidevtools/json-schema-ref-parser";
import { compile } from "json-schema-to-typescript";
import { jsonSchemaToZod } from "json-schema-to-zod";
import { renderClients } from "../dist/codegen/render.js";
import { diffSchemas } from "../dist/diff/schema-diff.js";
import { loadTemplates } from "../dist/generate/template-files.js";
import { median, report, timeAsync, timeProcess } from "./lib.mjs";

const templates = await loadTemplates();

function timed(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const cli = fileURLToPath(new URL("../dist/bin/pmcp.js", import.meta.url));

/** Realistic sizes: 5 input properties with a nested filter, an output with $defs, nullables, enums and a record. */
function tool(i) {
  return {
    name: `tool_${i}`,
    description: `Synthetic tool ${i}: lists items matching a filter.`,
    inputSchema: {
      type: "object",
      properties: {
        id: { type: "string", description: `Identifier ${i}` },
        limit: { type: "integer", minimum: 1, maximum: 100, default: 10 },
        mode: { enum: ["fast", "safe", "full"] },
        tags: { type: "array", items: { type: "string" } },
        filter: {
          type: "object",
          properties: {
            field: { type: "string" },
            op: { enum: ["eq", "ne", "gt", "lt"] },
            value: { anyOf: [{ type: "string" }, { type: "number" }, { type: "null" }] },
          },
          required: ["field", "op"],
        },
      },
      required: ["id"],
    },
    outputSchema: {
      type: "object",
      $defs: {
        Item: {
          type: "object",
          properties: {
            id: { type: "string" },
            name: { type: "string", minLength: 1 },
            price: { type: "number", minimum: 0 },
            created: { type: "string", format: "date-time" },
            owner: { anyOf: [{ type: "string" }, { type: "null" }] },
          },
          required: ["id", "name"],
        },
      },
      properties: {
        items: { type: "array", items: { $ref: "#/$defs/Item" } },
        total: { type: "integer" },
        next: { type: ["string", "null"] },
        status: { enum: ["ok", "partial"] },
        meta: { type: "object", additionalProperties: { type: "string" } },
      },
      required: ["items", "total"],
    },
    annotations: { readOnlyHint: true, "pmcp:outputTypeName": `Listing${i}` },
  };
}

/** 30 servers of 100 tools with long descriptions and wide records: a 12 MB bundle, as large real listings come. */
function largeServers() {
  return Array.from({ length: 30 }, (_, s) => ({
    id: `server-${s}`,
    tools: Array.from({ length: 100 }, (_, t) => {
      const base = tool(s * 100 + t);
      const fields = Object.fromEntries(
        Array.from({ length: 12 }, (_, f) => [
          `field_${f}`,
          { type: f % 3 ? "string" : "integer", description: `Field ${f}. `.padEnd(60, "x") },
        ]),
      );
      base.description = base.description.repeat(8);
      base.inputSchema.properties.filter.properties = { ...base.inputSchema.properties.filter.properties, ...fields };
      base.outputSchema.$defs.Item.properties = { ...base.outputSchema.$defs.Item.properties, ...fields };
      return base;
    }),
  }));
}

/**
 * Whole processes on one bundle file: a first `pmcp generate` into an empty folder against the
 * peers over the same schemas, then a re-run with nothing changed against `pmcp --version`.
 */
function wholeProcess(bundlePath, work, label) {
  const size = (statSync(bundlePath).size / 1e6).toFixed(1);
  const generateInto = (out) =>
    execFileSync(process.execPath, [cli, "generate", "--quiet", "--schema", bundlePath, "-o", out], { stdio: "ignore" });
  generateInto(join(work, "warm-up"));
  const first = median([0, 1, 2].map((i) => timed(() => generateInto(join(work, `first-${i}`)))));
  const peer = timed(() => execFileSync(process.execPath, [fileURLToPath(new URL("peer-generate.mjs", import.meta.url)), bundlePath]));
  report(
    `pmcp generate, ${label} (${size} MB), whole process, first run`,
    first,
    peer,
    "json-schema-to-typescript + json-schema-to-zod",
    0.5,
  );
  const again = timeProcess([cli, "generate", "--quiet", "--schema", bundlePath, "-o", join(work, "first-0")], 7);
  const version = timeProcess([cli, "--version"], 7);
  console.log(
    `pmcp generate, ${label}, unchanged bundle, whole process: ${again.toFixed(0)} ms (target ≤ 300 ms: ${again <= 300 ? "meets" : "MISSES"}); pmcp --version ${version.toFixed(0)} ms`,
  );
}

/** Generation time against enum size: linear growth keeps the time per value flat. */
async function enumGrowth() {
  const rows = [];
  for (const size of [1_000, 10_000, 100_000]) {
    const values = Array.from({ length: size }, (_, index) => `value-${index}`);
    const bundle = {
      version: "1.0",
      servers: [{ id: "wide", tools: [{ name: "pick", outputSchema: { type: "object", properties: { v: { enum: values } } } }] }],
    };
    const options = { source: "bench", runtimeImport: "@pmcp-codegen/runtime", strictObjects: false, generatorVersion: "bench" };
    const ms = await timeAsync(() => renderClients(bundle, options, templates), 3);
    rows.push(`${size.toLocaleString("en")} values ${ms.toFixed(0)} ms (${((ms * 1000) / size).toFixed(2)} µs per value)`);
  }
  console.log(`generate, one enum against its size: ${rows.join("; ")}`);
}

/** Generation and diff time against nesting depth: linear growth keeps the time per level flat. */
async function depthGrowth() {
  const nested = (depth, leaf) => {
    let schema = { type: leaf };
    for (let level = 0; level < depth; level++) schema = { type: "object", properties: { a: schema } };
    return schema;
  };
  const generateRows = [];
  const diffRows = [];
  for (const depth of [1_000, 2_000, 4_000, 8_000]) {
    const schema = nested(depth, "string");
    const bundle = { version: "1.0", servers: [{ id: "deep", tools: [{ name: "dig", inputSchema: schema, outputSchema: schema }] }] };
    const options = { source: "bench", runtimeImport: "@pmcp-codegen/runtime", strictObjects: false, generatorVersion: "bench" };
    const generate = await timeAsync(() => renderClients(bundle, options, templates), 7);
    generateRows.push(
      `${depth.toLocaleString("en")} levels ${generate.toFixed(1)} ms (${((generate * 1000) / depth).toFixed(1)} µs per level)`,
    );
    const changed = nested(depth, "number");
    const diff = await timeAsync(() => diffSchemas(schema, changed, "response"), 7);
    diffRows.push(`${depth.toLocaleString("en")} levels ${diff.toFixed(1)} ms (${((diff * 1000) / depth).toFixed(1)} µs per level)`);
  }
  console.log(`generate, one schema against its nesting depth: ${generateRows.join("; ")}`);
  console.log(`schema diff, one change at the bottom against nesting depth: ${diffRows.join("; ")}`);
}

export async function benchGenerate() {
  const servers = Array.from({ length: 10 }, (_, s) => ({
    id: `server-${s}`,
    tools: Array.from({ length: 100 }, (_, t) => tool(s * 100 + t)),
  }));
  const bundle = { version: "1.0", servers };
  const options = { source: "bench", runtimeImport: "@pmcp-codegen/runtime", strictObjects: false, generatorVersion: "bench" };
  const tools = servers.flatMap((server) => server.tools);

  const ours = await timeAsync(() => renderClients(bundle, options, templates), 5);
  const peers = await timeAsync(async () => {
    for (const { name, inputSchema, outputSchema } of tools) {
      await compile(structuredClone(inputSchema), `${name}Args`, { bannerComment: "", format: false });
      await compile(structuredClone(outputSchema), `${name}Result`, { bannerComment: "", format: false });
      // json-schema-to-zod turns every $ref into z.any() unless the schema is dereferenced first.
      jsonSchemaToZod(await $RefParser.dereference(structuredClone(outputSchema)));
    }
  }, 3);
  report("generate 1,000 tools (in process)", ours, peers, "json-schema-to-typescript + json-schema-to-zod", 0.5);
  await enumGrowth();
  await depthGrowth();

  const work = mkdtempSync(join(fileURLToPath(new URL(".", import.meta.url)), ".output-"));
  const { run } = await import("../dist/cli/program.js");
  const cwd = process.cwd();
  process.chdir(work);
  writeFileSync("bundle.json", JSON.stringify(bundle));
  await run(["generate", "--quiet", "--schema", "bundle.json", "-o", "out"]);
  const inProcess = await timeAsync(() => run(["generate", "--quiet", "--schema", "bundle.json", "-o", "out"]), 5);
  process.chdir(cwd);
  console.log(`pmcp generate, 1,000 tools, unchanged bundle: ${inProcess.toFixed(0)} ms in process`);

  const large = join(work, "large.json");
  writeFileSync(large, JSON.stringify({ version: "1.0", servers: largeServers() }));
  wholeProcess(large, work, "3,000 synthetic tools");
  const corpus = new URL("../test/corpus/servers.bundle.json.gz", import.meta.url);
  if (existsSync(corpus)) {
    const path = join(work, "corpus.json");
    writeFileSync(path, gunzipSync(readFileSync(corpus)));
    wholeProcess(path, work, "the real-server corpus");
  }
  rmSync(work, { recursive: true, force: true });
}
