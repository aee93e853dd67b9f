// Normalize on real servers: per profile, the tools whose schemas obey the profile's rules (no lint
// error) before and after `normalize`, what is left after, and the time to normalize the bundle.
// A strict profile's tool past its limits or budgets is normalized for the same provider without
// strict mode, and obeys that profile's rules.
// `node bench/normalize.mjs [bundle.json[.gz]]`; without an argument, the corpus of real npm servers.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { lintSchema } from "../dist/lint/lint.js";
import { normalizeBundle } from "../dist/normalize/bundle.js";
import { PROFILES, STRICT_FALLBACK } from "../dist/providers/facts.js";
import { CORPUS, median, readBundle } from "./lib.mjs";

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
  const bundle = readBundle(path);
  const tools = bundle.servers.flatMap((server) => server.tools);
  console.log(`normalize: ${tools.length} tools of ${bundle.servers.length} servers (${path})`);
  for (const profile of PROFILES) {
    const times = [];
    let normalized;
    for (let run = 0; run < 3; run++) {
      // A fresh copy each run: normalizing is remembered per schema object.
      const copy = structuredClone(bundle);
      const start = process.hrtime.bigint();
      normalized = normalizeBundle(copy, profile);
      times.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    const { servers, outcomes } = normalized;
    const before = tools.filter((tool) => errorRules(tool, profile).length === 0).length;
    const left = new Map();
    let after = 0;
    servers
      .flatMap((server) => server.tools)
      .forEach((tool, index) => {
        const rules = new Set(errorRules(tool, outcomes[index].profile));
        if (rules.size === 0) after++;
        for (const rule of rules) left.set(rule, (left.get(rule) ?? 0) + 1);
      });
    const fallbacks = outcomes.filter((outcome) => outcome.profile !== profile).length;
    const rest = [...left].map(([rule, n]) => `${rule} ${n}`).join(", ");
    console.log(
      `  ${profile.padEnd(16)} obeying ${before}/${tools.length} before, ${after}/${tools.length} after${fallbacks ? ` (${fallbacks} non-strict, as ${STRICT_FALLBACK[profile]}: past strict mode's limits or per-request budgets)` : ""}; ${median(times).toFixed(0)} ms${rest ? `; left (tools): ${rest}` : ""}`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await benchNormalize();
