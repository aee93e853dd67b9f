// Generation for a synthetic bundle of 1,000 tools (10 servers of 100) against
// json-schema-to-typescript plus json-schema-to-zod over the same schemas, in this run.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import $RefParser from "@apidevtools/json-schema-ref-parser";
import { compile } from "json-schema-to-typescript";
import { jsonSchemaToZod } from "json-schema-to-zod";
import { renderClients } from "../dist/codegen/render.js";
import { median, report, timeAsync, timeProcess } from "./lib.mjs";

function timed(fn) {
  const start = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const cli = fileURLToPath(new URL("../dist/cli/main.js", import.meta.url));

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

export async function benchGenerate() {
  const servers = Array.from({ length: 10 }, (_, s) => ({
    id: `server-${s}`,
    tools: Array.from({ length: 100 }, (_, t) => tool(s * 100 + t)),
  }));
  const bundle = { version: "1.0", servers };
  const options = { source: "bench", runtimeImport: "pmcp-codegen/runtime", strictObjects: false, generatorVersion: "bench" };
  const tools = servers.flatMap((server) => server.tools);

  const ours = await timeAsync(() => renderClients(bundle, options), 5);
  const peers = await timeAsync(async () => {
    for (const { name, inputSchema, outputSchema } of tools) {
      await compile(structuredClone(inputSchema), `${name}Args`, { bannerComment: "", format: false });
      await compile(structuredClone(outputSchema), `${name}Result`, { bannerComment: "", format: false });
      // json-schema-to-zod turns every $ref into z.any() unless the schema is dereferenced first.
      jsonSchemaToZod(await $RefParser.dereference(structuredClone(outputSchema)));
    }
  }, 3);
  report("generate 1,000 tools (in process)", ours, peers, "json-schema-to-typescript + json-schema-to-zod", 0.5);

  const work = mkdtempSync(join(fileURLToPath(new URL(".", import.meta.url)), ".output-"));
  const bundlePath = join(work, "bundle.json");
  writeFileSync(bundlePath, JSON.stringify(bundle));
  const generateInto = (out) => execFileSync(process.execPath, [cli, "generate", "--quiet", "--schema", bundlePath, "-o", out]);
  // A first run writes into an empty folder every time; a second run finds every module unchanged.
  generateInto(join(work, "warm-up"));
  const fresh = median([0, 1, 2].map((i) => timed(() => generateInto(join(work, `fresh-${i}`)))));
  const again = timeProcess([cli, "generate", "--quiet", "--schema", bundlePath, "-o", join(work, "fresh-0")], 7);
  const node = timeProcess(["-e", "0"], 7);
  const { run } = await import("../dist/cli/program.js");
  const cwd = process.cwd();
  process.chdir(work);
  const inProcess = await timeAsync(() => run(["generate", "--quiet", "--schema", "bundle.json", "-o", "fresh-0"]), 5);
  process.chdir(cwd);
  console.log(
    `pmcp generate, 1,000 tools, whole process, first run: ${fresh.toFixed(0)} ms (target < 1000 ms: ${fresh < 1000 ? "meets" : "MISSES"})`,
  );
  console.log(
    `pmcp generate, unchanged bundle: ${inProcess.toFixed(0)} ms in process (target < 150 ms: ${inProcess < 150 ? "meets" : "MISSES"}); whole process ${again.toFixed(0)} ms, of which bare node start-up ${node.toFixed(0)} ms`,
  );
  rmSync(work, { recursive: true, force: true });
}
