// Normalize on real servers: per profile, the tools whose schemas obey the profile's rules (no lint
// error) before and after `normalize`, what is left after, and the time to normalize the bundle.
// `node bench/normalize.mjs [bundle.json[.gz]]`; without an argument, the corpus of real npm servers.
import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { gunzipSync } from "node:zlib";
import { parseSchemaFile } from "../dist/bundle/read.js";
import { lintSchema } from "../dist/lint/lint.js";
import { normalizeBundle } from "../dist/normalize/bundle.js";
import { PROFILES } from "../dist/providers/facts.js";
import { median } from "./lib.mjs";

const CORPUS = fileURLToPath(new URL("../test/corpus/servers.bundle.json.gz", import.meta.url));

/** Error findings of every schema of a tool for `profile`, by rule. */
function errorRules(tool, profile) {
  const rules = [];
  for (const key of ["inputSchema", "outputSchema"]) {
    if (tool[key] === undefined) continue;
    for (const finding of lintSchema(tool[key], profile)) if (finding.severity === "error") rules.push(finding.rule);
  }
  return rules;
}

export async function benchNormalize(path = process.argv[2] ?? CORPUS) {
  if (!existsSync(path)) {
    console.log(`normalize: no bundle at ${path} (pass one: node bench/normalize.mjs <bundle>)`);
    return;
  }
  const bytes = readFileSync(path);
  const { bundle } = parseSchemaFile(path, (path.endsWith(".gz") ? gunzipSync(bytes) : bytes).toString("utf8"));
  const tools = bundle.servers.flatMap((server) => server.tools);
  console.log(`normalize: ${tools.length} tools of ${bundle.servers.length} servers (${path})`);
  for (const profile of PROFILES) {
    const times = [];
    let servers;
    for (let run = 0; run < 3; run++) {
      const start = process.hrtime.bigint();
      ({ servers } = normalizeBundle(bundle, profile));
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    const before = tools.filter((tool) => errorRules(tool, profile).length === 0).length;
    const left = new Map();
    let after = 0;
    for (const tool of servers.flatMap((server) => server.tools)) {
      const rules = new Set(errorRules(tool, profile));
      if (rules.size === 0) after++;
      for (const rule of rules) left.set(rule, (left.get(rule) ?? 0) + 1);
    }
    const rest = [...left].map(([rule, n]) => `${rule} ${n}`).join(", ");
    console.log(
      `  ${profile.padEnd(16)} obeying ${before}/${tools.length} before, ${after}/${tools.length} after; ${median(times).toFixed(0)} ms${rest ? `; left (tools): ${rest}` : ""}`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchNormalize();
