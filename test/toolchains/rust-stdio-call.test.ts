import { cp } from "node:fs/promises";
import { join } from "node:path";
import { CompositionClient } from "@pmcp-codegen/runtime";
import { beforeAll, describe, expect, it } from "vitest";
import { CARGO_OFFLINE, diagnostics, type Ran, run, rustSkipped, writeCargoToml } from "../helpers/cargo.js";
import { type CliResult, FIXTURES, runCli } from "../helpers/cli.js";
import { outputDir } from "../helpers/typescript.js";

/** The Rust program (a CompositionClient over stdio, and the calls it makes), checked in as source. */
const CALLER = join(FIXTURES, "rust-caller");

/**
 * Servers with output schemas of every kind the program reads: v2 SDK (typed, v2: both eras), v1 SDK
 * (records: enums, isError), raw JSON-RPC errors, and the echo server answering with what the program
 * asks, in the unions of rust-caller/echo-bundle.json, and in text for its `execute_sql`, which declares none.
 */
const ECHO = ["echo-result-server.mjs", join(CALLER, "echo-bundle.json"), "echo"];
const SERVERS = ["typed-server.mjs", "v2-server.mjs", "records-server.mjs", "rpc-error-server.mjs", ECHO.join(" ")];

/** What `execute_sql` answered while it was observed: its type is learned from them before the Rust is generated. */
const OBSERVED = [
  {
    rows: [
      { id: 1, name: "ada" },
      { id: 2, name: "alan" },
    ],
    count: 2,
  },
  { rows: [], count: 0 },
  { rows: [{ id: 3, name: "grace" }], count: 1 },
];

/** What the program prints, one line per call, before the eras it spoke. */
const CALLS = [
  'get_stock A1: sku "A1", quantity 7, location None',
  'ping: [{"text":"pong","type":"text"}], structuredContent None',
  'v2 count: 7, names ["a", "b"], get_stock abc: quantity 3',
  'list_records: 50 ids, Some("REC-001") to Some("REC-050")',
  'get_record REC-001: pending, South, amount 37.5, items 2, tags ["priority-1", "channel-store"]',
  'get_record REC-999: tool error [{"text":"No record REC-999","type":"text"}]',
  "lookup: call failed: record not found (-32000)",
  "measure: integer 3, circle radius 1.5, note absent",
  'measure: strings ["a", "b"], rect 2 by 3, note null',
  'measure: string "x", circle radius 1, note "hi"',
  "measure: does not fit: data did not match any variant of untagged enum MeasureResultValue",
  'execute_sql: typed, count 2, names ["edsger", "barbara"]',
  'execute_sql: untyped {"count":0,"rows":"none"}',
  'execute_sql: no JSON, content [{"text":"syntax error at or near \\"SELEC\\"","type":"text"}]',
];

const eras = (typed: string, v2: string) => [
  "era echo: 2025-11-25",
  `era inventory-v2: ${v2}`,
  "era records-fixture-server: 2025-11-25",
  "era rpc-error: 2025-11-25",
  `era typed-fixture-server: ${typed}`,
];

describe.skipIf(rustSkipped !== undefined)(
  `a Rust program calls stdio MCP servers through the generated clients${rustSkipped === undefined ? "" : ` (rustSkipped: ${rustSkipped})`}`,
  () => {
    let exported: CliResult;
    let generated: CliResult;
    let build: Ran;
    let recorded: Ran;
    let legacy: Ran;

    /**
     * One crate, one build, two runs: in the eras the bundle recorded, then the 2025 handshake with every
     * server. Between export and generate, calls through the TypeScript runtime observe `execute_sql`.
     */
    beforeAll(async () => {
      const crate = await outputDir("rust-caller");
      const bundle = join(crate, "bundle.json");
      const observations = join(crate, "observations");
      await cp(join(CALLER, "src"), join(crate, "src"), { recursive: true });
      await writeCargoToml(crate, "rust-caller");
      exported = await runCli(["schema", "export", ...SERVERS.flatMap((server) => ["--stdio", `node ${FIXTURES}${server}`]), "-o", bundle]);
      const [script = "", ...rest] = ECHO;
      const observing = new CompositionClient({
        servers: { echo: { command: process.execPath, args: [join(FIXTURES, script), ...rest] } },
        observe: { dir: observations },
      });
      try {
        for (const answer of OBSERVED) await observing.callToolForResult({ server: "echo", tool: "execute_sql", args: { answer } });
      } finally {
        await observing.close();
      }
      generated = await runCli([
        "generate",
        "--lang",
        "rust",
        "--schema",
        bundle,
        "--observations",
        observations,
        "-o",
        join(crate, "src/generated"),
      ]);
      build = await run("cargo", ["build", ...CARGO_OFFLINE], crate);
      recorded = await run("cargo", ["run", "--quiet", ...CARGO_OFFLINE, "--", bundle], crate);
      legacy = await run("cargo", ["run", "--quiet", ...CARGO_OFFLINE, "--", bundle, "legacy"], crate);
    }, 300_000);

    it("builds the program with the generated clients offline, with no warnings", () => {
      expect(exported.code, exported.stderr).toBe(0);
      expect(generated.code, generated.stderr).toBe(0);
      expect(generated.stdout.split("\n")[0]).toBe("inferred echo/execute_sql: 3 observations, quality low (consistency 1)");
      expect(build.code, build.stderr).toBe(0);
      expect(diagnostics(build.stderr)).toEqual([]);
    });

    it("gets typed results: structs, Options, enums and unions matched, isError as Tool, JSON-RPC errors as Call, a misfit of a declared type as Decode, of a learned one untyped", () => {
      expect(recorded.code, recorded.stderr).toBe(0);
      // The v2-SDK servers were exported in 2026-07-28, so the program speaks it to them: no initialize.
      expect(recorded.stdout.split("\n").slice(0, -1)).toEqual([...CALLS, ...eras("2026-07-28", "2026-07-28")]);
    });

    it("gets the same results from the v2-SDK servers in the 2025 era, the non-object ones unwrapped from { result }", () => {
      expect(legacy.code, legacy.stderr).toBe(0);
      expect(legacy.stdout.split("\n").slice(0, -1)).toEqual([...CALLS, ...eras("2025-11-25", "2025-11-25")]);
    });
  },
);
