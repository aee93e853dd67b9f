// The model bridge on real servers: `toolsForModel` for the whole corpus per profile, against
// `normalizeBundle` alone (the part it shares with `pmcp schema normalize`); and `restoreArguments`
// per call, against one Ajv validation of the same arguments, on arguments with nothing to restore
// and on what each profile's encoding makes a model send. `node bench/model.mjs`.
import { deepStrictEqual } from "node:assert";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { compileSchema } from "../dist/json-schema/validator.js";
import { PROFILES, restoreArguments, toolsForModel } from "../dist/model/index.js";
import { normalizeBundle } from "../dist/normalize/bundle.js";
import { STRICT_FALLBACK } from "../dist/providers/facts.js";
import { TOOLS } from "../test/fixtures/model-bridge-server.mjs";
import { CORPUS, comparePerCall, median, readBundle } from "./lib.mjs";

const RUNS = 5;
const CALLS = 10_000;
const ROUNDS = 9;
/** Fresh copies of a schema whose first call is timed. */
const FIRST_CALLS = 15;

const elapsed = (start) => Number(process.hrtime.bigint() - start) / 1e6;

async function benchToolsForModel(bundle) {
  for (const profile of PROFILES) {
    const ours = [];
    const peer = [];
    let toolset;
    for (let run = 0; run < RUNS; run++) {
      // A fresh copy per run: normalizedFor and restoreArguments remember their work per schema
      // object, and no run may reuse another's. Which goes first alternates, as the machine warms.
      const measure = async (fn) => {
        const copy = structuredClone(bundle);
        const start = process.hrtime.bigint();
        await fn(copy);
        return elapsed(start);
      };
      const normalizing = () => measure((copy) => normalizeBundle(copy, profile));
      const declaring = () =>
        measure(async (copy) => {
          toolset = await toolsForModel(copy, { profile });
        });
      if (run % 2 === 0) {
        peer.push(await normalizing());
        ours.push(await declaring());
      } else {
        ours.push(await declaring());
        peer.push(await normalizing());
      }
    }
    const { declared, skipped } = toolset;
    const renamed = declared.filter((tool) => tool.name !== tool.tool).length;
    const nonStrict = STRICT_FALLBACK[profile] === undefined ? "" : `, ${declared.filter((tool) => !tool.strict).length} non-strict`;
    const ratios = ours.map((ms, run) => ms / peer[run]);
    console.log(
      `  ${profile.padEnd(16)} ${declared.length} declared (${renamed} renamed${nonStrict}, ${skipped.length} skipped): ${median(ours).toFixed(0)} ms vs normalizeBundle alone ${median(peer).toFixed(0)} ms, ratio ${median(ratios).toFixed(2)}`,
    );
  }
}

/** Arguments as a model sends them under each profile that encodes them, and what they restore to. */
function restoreCases(bundle) {
  const schemaOf = (server, tool) =>
    bundle.servers.find((entry) => entry.id === server).tools.find((entry) => entry.name === tool).inputSchema;
  const braveSchema = schemaOf("brave-search", "brave_web_search");
  const braveOmitted = Object.keys(braveSchema.properties).filter((key) => !["query", "count"].includes(key));
  const fields = { Name: "Espresso beans", Quantity: 42, Tags: ["coffee", "1 kg"] };
  const record = { baseId: "appXYZ", tableId: "tblStock", fields };
  const recordAsText = { ...record, fields: JSON.stringify(fields) };
  const configure = { level: 3, verbose: true, labels: { team: "core" }, options: { retries: 2, mode: ["a", "b"] } };
  const configureAsStrings = {
    level: "3",
    verbose: "true",
    labels: JSON.stringify(configure.labels),
    options: JSON.stringify(configure.options),
  };
  const readFile = { path: "/var/log/app.log", tail: 20 };
  return [
    {
      what: "filesystem/read_text_file, nothing to restore",
      schema: schemaOf("filesystem", "read_text_file"),
      sent: Object.fromEntries(PROFILES.map((profile) => [profile, readFile])),
      restored: readFile,
    },
    {
      what: `brave-search/brave_web_search, its ${braveOmitted.length} omitted optional properties as null`,
      schema: braveSchema,
      sent: {
        "openai-strict": { query: "model context protocol", count: 5, ...Object.fromEntries(braveOmitted.map((key) => [key, null])) },
      },
      restored: { query: "model context protocol", count: 5 },
    },
    {
      what: "airtable/create_record, a record as JSON text",
      schema: schemaOf("airtable", "create_record"),
      sent: { "openai-strict": recordAsText, gemini: recordAsText, "anthropic-strict": recordAsText, portable: recordAsText },
      restored: record,
    },
    {
      what: "postman/getAllComponents, a boolean enum as a string",
      schema: schemaOf("postman", "getAllComponents"),
      sent: { gemini: { status: "active", hasVersions: "true" }, portable: { status: "active", hasVersions: "true" } },
      restored: { status: "active", hasVersions: true },
    },
    {
      // The corpus has no integer enum: the model-bridge fixture's tool has one.
      what: "fixture configure, an integer and a boolean enum as strings, a record and a free-form value as JSON text",
      schema: TOOLS.find((tool) => tool.name === "configure").inputSchema,
      sent: { gemini: configureAsStrings, portable: configureAsStrings },
      restored: configure,
    },
    {
      what: "fixture configure, omitted optional properties as null, a record as JSON text",
      schema: TOOLS.find((tool) => tool.name === "configure").inputSchema,
      sent: { "openai-strict": { level: 3, verbose: null, labels: configureAsStrings.labels, options: null, note: null } },
      // The free-form `options` accepts null, so its null stays.
      restored: { level: 3, labels: configure.labels, options: null },
    },
  ];
}

/** Milliseconds of the first restore (normalize, compile, restore) and of an Ajv compile and validation, on fresh copies of the schema. */
function firstCalls(schema, sent, profile) {
  const ours = [];
  const peer = [];
  for (let copy = 0; copy < FIRST_CALLS; copy++) {
    let start = process.hrtime.bigint();
    restoreArguments(structuredClone(schema), sent, { profile });
    ours.push(elapsed(start));
    start = process.hrtime.bigint();
    compileSchema(structuredClone(schema))(sent);
    peer.push(elapsed(start));
  }
  return { ours: median(ours), peer: median(peer) };
}

async function benchRestore(bundle) {
  const cases = restoreCases(bundle);
  for (const profile of PROFILES) {
    for (const { what, schema, sent: byProfile, restored } of cases) {
      const sent = byProfile[profile];
      if (sent === undefined) continue;
      // A figure for arguments that do not restore to these would measure something else.
      deepStrictEqual(restoreArguments(schema, sent, { profile }), restored);
      const first = firstCalls(schema, sent, profile);
      const validate = compileSchema(schema);
      const calls = await comparePerCall(
        () => restoreArguments(schema, sent, { profile }),
        () => validate(sent),
        CALLS,
        ROUNDS,
        { sync: true },
      );
      console.log(
        `  ${profile.padEnd(16)} ${what}: ${calls.ours.toFixed(2)} µs vs Ajv validation ${calls.peer.toFixed(2)} µs, ratio ${calls.ratio.toFixed(1)}; first call ${first.ours.toFixed(2)} ms vs Ajv compile + validation ${first.peer.toFixed(2)} ms`,
      );
    }
  }
}

export async function benchModel() {
  const bundle = readBundle(CORPUS);
  const tools = bundle.servers.reduce((count, server) => count + server.tools.length, 0);
  console.log(
    `toolsForModel, per profile: ${tools} tools of ${bundle.servers.length} servers (${relative(process.cwd(), CORPUS)}; the issue's 3,354-tool held-out bundle is not in the repository), median of ${RUNS} runs on fresh copies of the bundle`,
  );
  await benchToolsForModel(bundle);
  console.log(
    `restoreArguments, per profile: µs per call in blocks of ${CALLS.toLocaleString("en")} calls, median of ${ROUNDS} rounds alternating with one Ajv validation of the same arguments as sent (compiled once); first call: median of ${FIRST_CALLS} fresh copies of the schema`,
  );
  await benchRestore(bundle);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchModel();
