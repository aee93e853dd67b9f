// Schema patterns: the linear-time engine's cost per match against RegExp's, on every pattern of the
// corpus of real npm servers (those RegExp and the engine both take), each against texts of the kinds
// servers check; then the one case it is for, a pattern that backtracks, where RegExp's time doubles
// with each character and the engine's grows with the text's length.
// `node bench/patterns.mjs [bundle.json[.gz]]`.
import { fileURLToPath } from "node:url";
import { walkSchemas } from "../dist/json-schema/traverse.js";
import { pattern } from "../packages/runtime/dist/pattern.js";
import { CORPUS, median, readBundle, report } from "./lib.mjs";

const TEXTS = [
  "",
  "example",
  "a-b_c.d",
  "someone.name@example.com",
  "2026-12-03T10:15:00Z",
  "https://example.com/path/to?query=1&b=two",
  "550e8400-e29b-41d4-a716-446655440000",
  "Hello, World! Ünïcödé 😀",
  "x".repeat(200),
];

/** Every pattern of the bundle's schemas: `pattern` values and `patternProperties` keys. */
function patternsOf(bundle) {
  const found = new Set();
  for (const server of bundle.servers)
    for (const tool of server.tools)
      for (const schema of [tool.inputSchema, tool.outputSchema])
        for (const { node } of walkSchemas(schema)) {
          if (typeof node.pattern === "string") found.add(node.pattern);
          if (node.patternProperties && typeof node.patternProperties === "object")
            for (const key of Object.keys(node.patternProperties)) found.add(key);
        }
  return [...found];
}

/** Nanoseconds per test of `matchers` over TEXTS, median of 5 rounds of `rounds` passes. */
function perMatch(matchers, rounds) {
  const times = [];
  let sink = 0;
  for (let round = 0; round < 5; round++) {
    const start = process.hrtime.bigint();
    for (let pass = 0; pass < rounds; pass++) for (const matcher of matchers) for (const text of TEXTS) if (matcher.test(text)) sink++;
    times.push(Number(process.hrtime.bigint() - start) / (rounds * matchers.length * TEXTS.length));
  }
  if (sink < 0) console.log(sink);
  return median(times);
}

export function benchPatterns(path = process.argv[2] ?? CORPUS) {
  const all = patternsOf(readBundle(path));
  const taken = all.filter((source) => {
    try {
      new RegExp(source, "u");
      pattern(source);
      return true;
    } catch {
      return false;
    }
  });
  const linear = taken.map((source) => pattern(source));
  const native = taken.map((source) => new RegExp(source, "u"));
  // Warm both up before measuring.
  perMatch(linear, 20);
  perMatch(native, 20);
  const ours = perMatch(linear, 200) / 1000;
  const theirs = perMatch(native, 200) / 1000;
  console.log(
    `patterns: ${taken.length} of the corpus's ${all.length} patterns, each against ${TEXTS.length} texts (the others not checked: lookaround, backreferences)`,
  );
  report("  cost per match", ours, theirs, "RegExp", 12, "µs");
  for (const length of [20, 24]) {
    const text = `${"a".repeat(length)}!`;
    const time = (matcher) => {
      const start = process.hrtime.bigint();
      matcher.test(text);
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    const engine = median([1, 2, 3].map(() => time(pattern("^(a+)+$"))));
    const backtracking = time(/^(a+)+$/u);
    report(`  ^(a+)+$ against ${length + 1} characters`, engine, backtracking, "RegExp", 1, "ms");
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) benchPatterns();
