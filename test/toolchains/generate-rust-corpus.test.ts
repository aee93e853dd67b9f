import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { renderRust } from "../../src/codegen/rust/render-rust.js";
import { compileSchema } from "../../src/json-schema/validator.js";
import { compileWithAjv } from "../helpers/ajv-agreement.js";
import { CARGO_OFFLINE, diagnostics, type Ran, run, rustSkipped, writeCargoToml } from "../helpers/cargo.js";
import { corpusBundle, corpusEntries, type Entry } from "../helpers/corpus-entries.js";
import { samples } from "../helpers/samples.js";
import { CONSTRUCTS, constructsOf, serdeProjection } from "../helpers/serde-projection.js";
import { outputDir } from "../helpers/typescript.js";

/** Samples per entry: enough to reach both sides of its boundaries, few enough for one quick run of the binary. */
const SAMPLES = 80;
const OPTIONS = { source: "corpus", runtimeImport: "unused", strictObjects: false, generatorVersion: "test" };

/**
 * Entries whose Rust type is wider than their shape, with why: serde reads some of their samples
 * that Ajv rejects for a wrong type or a missing key. Every other entry's structural rejects are serde's too.
 */
const WIDER: Record<string, string> = {
  "allof-additional-false":
    "allOf beside properties is an intersection of objects: serde_json::Value (Rust has no intersection of structs)",
  "const-with-proto-key": "an object const is serde_json::Value: serde compares no literal but a string",
  "consts-and-enums": "an enum of an array, an object and a string is serde_json::Value",
  "enum-of-objects": "an enum of objects is serde_json::Value",
  "prefix-items-unevaluated": "a tuple with more items after it (by unevaluatedItems) is Vec<serde_json::Value>",
  "ref-sibling-unevaluated": "$ref beside properties is an intersection of objects: serde_json::Value",
  "tuple-2020": "a tuple without items: false, or with items after it, is Vec<serde_json::Value>",
  "tuple-draft-07": "a draft-07 tuple with additionalItems is Vec<serde_json::Value>",
  "tuple-optional-union": "a tuple whose items are all optional is Vec<serde_json::Value>",
};

/**
 * What Ajv says of a sample: `valid`; `structural`, rejected even by the schema's serde projection
 * (a missing required key, a wrong type, an unknown key of a closed object, a value outside an enum),
 * which serde must reject too; `unchecked`, rejected only for what serde does not check (bounds,
 * patterns, formats…), only counted.
 */
type Verdict = "valid" | "structural" | "unchecked";

/** What the Rust program did with a sample: read it into the type and wrote it back, or not. */
type Outcome = { kind: "ok"; json: unknown } | { kind: "rejected" | "unreadable"; error: string };

/** The typed fixture server's get_stock result type, and an integer written as JSON Schema allows and as serde_json reads it. */
const INTEGER_ENTRY = "typed-fixture-server/get_stock/output";
const INTEGER_TEXTS = ['{"sku":"a","quantity":1,"location":null}', '{"sku":"a","quantity":1.0,"location":null}'];

interface Sample {
  entry: number;
  value: unknown;
  verdict: Verdict;
  outcome?: Outcome;
}

/** `S<index>` for each entry, read from JSON as the generated client does (`serde_json::from_value`) and written back. */
function mainRs(count: number): string {
  const arms = Array.from({ length: count }, (_, index) => `        ${index} => check::<generated::corpus::S${index}>(value),\n`);
  return `use rust_corpus::generated;
use std::io::BufRead;

fn check<T: serde::de::DeserializeOwned + serde::Serialize>(value: serde_json::Value) -> String {
    match serde_json::from_value::<T>(value) {
        Ok(typed) => format!("ok\\t{}", serde_json::to_string(&typed).unwrap()),
        Err(error) => format!("rejected\\t{}", serde_json::to_string(&error.to_string()).unwrap()),
    }
}

fn main() {
    for line in std::io::stdin().lock().lines() {
        let line = line.unwrap();
        let (index, text) = line.split_once('\\t').unwrap();
        let value: serde_json::Value = match serde_json::from_str(text) {
            Ok(value) => value,
            Err(error) => {
                println!("unreadable\\t{}", serde_json::to_string(&error.to_string()).unwrap());
                continue;
            }
        };
        let outcome = match index.parse::<usize>().unwrap() {
${arms.join("")}        _ => unreachable!(),
    };
        println!("{outcome}");
    }
}
`;
}

function parseOutcome(line: string): Outcome {
  const [kind, text] = line.split("\t") as [string, string];
  if (kind === "ok") return { kind, json: JSON.parse(text) };
  if (kind === "rejected" || kind === "unreadable") return { kind, error: JSON.parse(text) as string };
  throw new Error(`unexpected output line: ${line}`);
}

describe.skipIf(rustSkipped !== undefined)(
  `the corpus in Rust: Ajv's verdicts against serde's${rustSkipped === undefined ? "" : ` (rustSkipped: ${rustSkipped})`}`,
  () => {
    let entries: Entry[];
    let build: Ran;
    /** Entries whose type the emitter makes `serde_json::Value` (nothing to check), and entries Ajv cannot compile. */
    let anyJson: string[];
    let uncompiled: string[];
    const sampled: Sample[] = [];
    let integerOutcomes: Outcome[];
    let seconds: number;

    /** One crate (the corpus module, and a main.rs that reads every sample), one build, one run. */
    beforeAll(async () => {
      const started = performance.now();
      entries = await corpusEntries(inject("referenceBundle"));
      const crate = await outputDir("rust-corpus");
      const rendered = renderRust(corpusBundle(entries), OPTIONS);
      await mkdir(join(crate, "src/generated"), { recursive: true });
      for (const file of rendered.files) await writeFile(join(crate, "src/generated", file.path), file.content);
      const code = rendered.files.find((file) => file.path === "corpus.rs")!.content;
      const typed = (index: number) => !code.includes(`\npub type S${index} = serde_json::Value;`);
      await writeCargoToml(crate, "rust_corpus");
      await writeFile(join(crate, "src/lib.rs"), "pub mod generated;\n");
      await writeFile(join(crate, "src/main.rs"), mainRs(entries.length));

      anyJson = [];
      uncompiled = [];
      for (const [index, entry] of entries.entries()) {
        const ajv = compileWithAjv(entry.schema);
        if (ajv === undefined) uncompiled.push(entry.name);
        else if (!typed(index)) anyJson.push(entry.name);
        if (ajv === undefined || !typed(index)) continue;
        const projected = compileSchema(serdeProjection(entry.schema));
        for (const value of fc.sample(samples(entry.schema), { numRuns: SAMPLES, seed: 20270327 + index })) {
          const verdict = ajv(value) ? "valid" : projected(value) ? "unchecked" : "structural";
          // The instance as JSON sends it (no -0), which is what serde reads.
          sampled.push({ entry: index, value: JSON.parse(JSON.stringify(value)), verdict });
        }
      }
      const stock = entries.findIndex((entry) => entry.name === INTEGER_ENTRY);
      const lines = [
        ...sampled.map((sample) => `${sample.entry}\t${JSON.stringify(sample.value)}`),
        ...INTEGER_TEXTS.map((text) => `${stock}\t${text}`),
      ];
      build = await run("cargo", ["build", ...CARGO_OFFLINE], crate);
      if (build.code !== 0) return;
      // Built already: `cargo run` only finds the binary in the shared target folder.
      const ran = await run("cargo", ["run", "--quiet", ...CARGO_OFFLINE], crate, `${lines.join("\n")}\n`);
      const outcomes = ran.stdout.split("\n").filter(Boolean).map(parseOutcome);
      if (outcomes.length !== lines.length) throw new Error(`${lines.length} samples, ${outcomes.length} outcomes: ${ran.stderr}`);
      for (const [index, sample] of sampled.entries()) sample.outcome = outcomes[index]!;
      integerOutcomes = outcomes.slice(sampled.length);
      seconds = (performance.now() - started) / 1000;
    }, 600_000);

    it("compiles the whole corpus as one crate with no warnings", () => {
      expect(build.code, build.stderr).toBe(0);
      expect(diagnostics(build.stderr)).toEqual([]);
    });

    it("samples every entry but those Ajv cannot compile and those typed as any JSON", () => {
      expect(uncompiled).toEqual(["unsupported-parts", "listing-fixture/dangling/output", "listing-fixture/odd_dialect/input"]);
      expect(anyJson).toEqual([
        "unevaluated-anyof",
        "unevaluated-ref-dependent",
        "unevaluated-items",
        "unevaluated-items-schema",
        "enum-minlength",
        "typeless-not",
        "if-false",
        "nested-allof-closed",
        "unevaluated-nested-anyof",
      ]);
      expect(new Set(sampled.map((sample) => sample.entry)).size).toBe(entries.length - uncompiled.length - anyJson.length);
    });

    it("reads every Ajv-valid sample into its type and writes it back as equal JSON", () => {
      // Compared as JSON.parse reads both: numbers by value (serde writes an f64 1 as `1.0`), keys in any
      // order (serde writes a struct's in field order); a float off by one ulp or a key dropped is a failure.
      const failures = sampled
        .filter((sample) => sample.verdict === "valid")
        .filter((sample) => sample.outcome?.kind !== "ok" || !isDeepStrictEqual(sample.outcome.json, sample.value))
        .map((sample) => `${entries[sample.entry]!.name}: ${JSON.stringify(sample.value)} → ${JSON.stringify(sample.outcome)}`);
      expect(failures).toEqual([]);
    });

    it("rejects every sample Ajv rejects for its shape, but in the entries typed wider, each for its reason", () => {
      const accepted = sampled.filter((sample) => sample.verdict === "structural" && sample.outcome?.kind !== "rejected");
      expect([...new Set(accepted.map((sample) => entries[sample.entry]!.name))].sort()).toEqual(Object.keys(WIDER).sort());
    });

    it("rejects an integer written 1.0, which JSON Schema's integer accepts (serde_json keeps 1.0 a float)", () => {
      const schema = entries.find((entry) => entry.name === INTEGER_ENTRY)!.schema;
      expect(INTEGER_TEXTS.map((text) => compileSchema(schema)(JSON.parse(text)))).toEqual([true, true]);
      expect(integerOutcomes).toEqual([
        { kind: "ok", json: JSON.parse(INTEGER_TEXTS[0]!) },
        { kind: "rejected", error: "invalid type: floating point `1`, expected i64" },
      ]);
    });

    it("covers every construct, and prints the figures per construct", () => {
      const members = CONSTRUCTS.map(
        (construct) => new Set(entries.flatMap((entry, index) => (constructsOf(entry.schema).has(construct) ? [index] : []))),
      );
      expect(CONSTRUCTS.filter((_construct, index) => members[index]!.size === 0)).toEqual([]);
      const rows = CONSTRUCTS.map((construct, index) =>
        figures(
          construct,
          members[index]!.size,
          sampled.filter((sample) => members[index]!.has(sample.entry)),
        ),
      );
      console.log(
        [
          `${SAMPLES} samples per entry; not sampled: ${anyJson.length} entries typed as any JSON, ${uncompiled.length} Ajv cannot compile; ${seconds.toFixed(1)} s`,
          "construct            entries  valid: round-tripped  structural: rejected  unchecked: accepted",
          ...rows,
          figures("(all)", new Set(sampled.map((sample) => sample.entry)).size, sampled),
        ].join("\n"),
      );
    });
  },
);

/** One row of the figures: samples of the entries that have a construct, by Ajv's verdict and serde's outcome. */
function figures(construct: string, entryCount: number, of: readonly Sample[]): string {
  const count = (verdict: Verdict, kind?: Outcome["kind"]) =>
    of.filter((sample) => sample.verdict === verdict && (kind === undefined || sample.outcome?.kind === kind)).length;
  const ratio = (verdict: Verdict, kind: Outcome["kind"]) => `${count(verdict, kind)}/${count(verdict)}`;
  return [
    construct.padEnd(20),
    String(entryCount).padStart(7),
    ratio("valid", "ok").padStart(23),
    ratio("structural", "rejected").padStart(21),
    ratio("unchecked", "ok").padStart(20),
  ].join(" ");
}
