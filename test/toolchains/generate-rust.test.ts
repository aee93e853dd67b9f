import { access, cp, mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { Bundle, Tool } from "../../src/bundle/types.js";
import { renderRust } from "../../src/codegen/rust/render-rust.js";
import { CARGO_OFFLINE, diagnostics, type Ran, run, rustSkipped, writeCargoToml } from "../helpers/cargo.js";
import { FIXTURES, runCli, runInProcess } from "../helpers/cli.js";
import { PAYLOADS } from "../helpers/hostile-strings.js";
import { outputDir } from "../helpers/typescript.js";

const tool = (name: string, outputSchema?: Tool["outputSchema"], rest: Partial<Tool> = {}): Tool => ({
  name,
  ...(outputSchema === undefined ? {} : { outputSchema }),
  ...rest,
});

/** The typed fixture server's results and the constructs serde must hold exactly, one server each for cycles and names. */
const BUNDLE: Bundle = {
  version: "1.0",
  servers: [
    {
      id: "cycles",
      tools: Object.entries({
        self: { $defs: { A: { $ref: "#/$defs/A" } }, $ref: "#/$defs/A" },
        pair: { $defs: { A: { $ref: "#/$defs/B" }, B: { $ref: "#/$defs/A" } }, $ref: "#/$defs/A" },
        union: { $defs: { A: { anyOf: [{ type: "string" }, { type: "array", items: { $ref: "#/$defs/A" } }] } }, $ref: "#/$defs/A" },
        list: { $defs: { L: { type: "array", items: { $ref: "#/$defs/L" } } }, $ref: "#/$defs/L" },
        root: { type: "object", properties: { next: { $ref: "#" }, all: { type: "array", items: { $ref: "#" } } } },
        tree: {
          type: "object",
          properties: { root: { $ref: "#/$defs/Node" } },
          required: ["root"],
          $defs: {
            Node: {
              type: "object",
              description: "A tree node",
              properties: {
                name: { type: "string" },
                children: { type: "array", items: { $ref: "#/$defs/Node" } },
                parent: { anyOf: [{ $ref: "#/$defs/Node" }, { type: "null" }] },
              },
              required: ["name", "children"],
            },
          },
        },
      }).map(([name, schema]) => tool(name, schema)),
    },
    { id: "mod", tools: [tool("type"), tool("self"), tool("Type"), tool("new"), tool("2fa"), tool("größe")] },
    {
      id: "typed-fixture-server",
      tools: [
        tool(
          "get_stock",
          {
            type: "object",
            properties: {
              sku: { type: "string" },
              quantity: { type: "integer", minimum: 0 },
              location: { type: ["array", "null"], prefixItems: [{ type: "number" }, { type: "number" }], items: false, minItems: 2 },
            },
            required: ["sku", "quantity", "location"],
            additionalProperties: false,
          },
          {
            description: "Stock level for one SKU",
            inputSchema: {
              type: "object",
              properties: { sku: { type: "string", description: "Stock keeping unit" }, warehouse: { enum: ["north", "south"] } },
              required: ["sku"],
            },
            annotations: { "pmcp:outputTypeName": "StockLevel" },
          },
        ),
        tool("shapes", {
          type: "object",
          properties: {
            shape: {
              oneOf: [
                { type: "object", properties: { kind: { const: "circle" }, radius: { type: "number" } }, required: ["kind", "radius"] },
                {
                  type: "object",
                  properties: { kind: { const: "rect" }, w: { type: "number" }, h: { type: "number" } },
                  required: ["kind", "w", "h"],
                  additionalProperties: false,
                },
              ],
            },
            value: { anyOf: [{ type: "string" }, { type: "number" }, { type: "integer" }, { type: "array", items: { type: "string" } }] },
            type: { type: "string", pattern: "^[a-z]+$" },
            self: { enum: ["ok", "self", "Ok", null] },
            "row-count": { type: "string" },
            row_count: { type: "integer" },
            meta: {},
            counts: { type: "object", additionalProperties: { type: "integer" } },
            open: { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "number" } },
          },
          required: ["shape", "value", "type"],
        }),
        tool("count", { type: "array", items: { type: "integer" } }),
        tool("learned"),
        tool("untyped"),
      ],
      inferred: [
        {
          tool: "learned",
          schema: { type: "object", properties: { total: { type: "integer" } }, required: ["total"] },
          observations: 3,
          seen: 3,
          firstSeen: "2026-01-01T00:00:00.000Z",
          lastSeen: "2026-01-01T00:00:00.000Z",
          redacted: false,
          consistency: 1,
          quality: "low",
          fields: [{ path: "total", types: { integer: 3 } }],
        },
      ],
    },
  ],
};

/** Rust's ways out of a string, a comment or a doc comment, beside the JavaScript ones. */
const RUST_PAYLOADS = [
  "*/ fn pwned() {} /*",
  '"); std::process::exit(1); //',
  '"#; fn pwned() {} r#"',
  'Example:\n```\nstd::fs::write("pwned-fenced", "").unwrap();\n```',
  'Example:\n\n    std::fs::write("pwned-indented", "").unwrap();',
  "~~~\nfn main() {}\n~~~",
  'Example:\n> ```\n> std::fs::write("pwned-quoted", "").unwrap();\n> ```',
  '>     std::fs::write("pwned-quoted-indented", "").unwrap();',
  "\r\n#[cfg(test)] mod pwned {}\r",
  "\u0000\u0085\ud800",
  "Trojan \u202e source \u2066 text \u2069",
];

function hostileTool(payload: string, index: number): Tool {
  const schema = {
    type: "object",
    title: payload,
    description: payload,
    properties: {
      [payload]: { type: "string", description: payload, pattern: payload.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&"), format: payload },
      choice: { enum: [payload, `${payload}2`, "self"], description: payload },
      fixed: { const: payload },
      nested: { const: { [payload]: [payload] } },
      tagged: {
        oneOf: [
          { type: "object", properties: { [payload]: { const: payload }, x: { type: "string" } }, required: [payload] },
          { type: "object", properties: { [payload]: { const: `${payload}!` } }, required: [payload] },
        ],
      },
    },
    required: [payload],
  };
  return tool(payload, schema, {
    title: payload,
    description: payload,
    inputSchema: schema,
    annotations: { "pmcp:outputTypeName": `${payload}${index}` },
  });
}

/** Servers named like the crates mod.rs names: a module of that name would shadow the crate there. */
const CRATE_NAMED = ["serde", "serde_json", "std"].map((id) => ({ id, tools: [tool("t")] }));

/** A result type named like the client's type parameter `C`. */
const NAMED_C = tool("c", { type: "object", title: "C", properties: { a: { type: "string" } } });

/** A result object of 6,000 properties: serde's derive of such a struct overflows rustc's stack. */
const WIDE = tool("wide", {
  type: "object",
  properties: Object.fromEntries(Array.from({ length: 6_000 }, (_, index) => [`field_${index}`, { type: "integer" }])),
});

const HOSTILE: Bundle = {
  version: "1.0",
  servers: [
    { id: "wide", tools: [WIDE] },
    { id: "hostile", instructions: RUST_PAYLOADS.join("\n"), tools: [...PAYLOADS, ...RUST_PAYLOADS].map(hostileTool) },
    ...CRATE_NAMED,
    { id: "generic", tools: [NAMED_C] },
  ],
};

const OPTIONS = { source: "hostile */ bundle\n.json", runtimeImport: "unused", strictObjects: false, generatorVersion: "test" };

/** The struct or enum `name` of a module, from its attributes to its closing brace. */
function item(code: string, name: string): string {
  const start = code.search(new RegExp(`^#\\[derive[^\\n]*\\n(#\\[serde[^\\n]*\\n)?pub (struct|enum) ${name} `, "m"));
  return code.slice(start, code.indexOf("\n}\n", start) + 3);
}

describe.skipIf(rustSkipped !== undefined)(
  `pmcp generate --lang rust${rustSkipped === undefined ? "" : ` (rustSkipped: ${rustSkipped})`}`,
  () => {
    let crate: string;
    let generated: Awaited<ReturnType<typeof runCli>>;
    let build: Ran;
    let doctests: Ran;
    let oneMethod: { build: Ran; run: Ran };

    /**
     * One crate: the CLI's output in src/generated, the hostile bundle's in src/hostile; one build for
     * both. Then a second crate whose main calls one method of the CLI's output, as most crates use it.
     */
    beforeAll(async () => {
      crate = await outputDir("rust");
      await writeFile(join(crate, "bundle.json"), JSON.stringify(BUNDLE));
      generated = await runCli(["generate", "--lang", "rust", "--schema", join(crate, "bundle.json"), "-o", join(crate, "src/generated")]);
      const hostile = renderRust(HOSTILE, OPTIONS);
      await mkdir(join(crate, "src/hostile"));
      for (const file of hostile.files) await writeFile(join(crate, "src/hostile", file.path), file.content);
      await writeCargoToml(crate, "generated");
      await writeFile(join(crate, "src/lib.rs"), "pub mod generated;\npub mod hostile;\n");
      build = await run("cargo", ["build", ...CARGO_OFFLINE], crate);
      // A description that became a doctest would be compiled and run here.
      doctests = await run("cargo", ["test", "--doc", ...CARGO_OFFLINE], crate);
      const one = await outputDir("rust-one-method");
      await cp(join(crate, "src/generated"), join(one, "src/generated"), { recursive: true });
      await cp(join(FIXTURES, "rust-one-method.rs"), join(one, "src/main.rs"));
      await cp(join(FIXTURES, "rust-caller/src/block_on.rs"), join(one, "src/block_on.rs"));
      await writeCargoToml(one, "one_method");
      oneMethod = {
        build: await run("cargo", ["build", ...CARGO_OFFLINE], one),
        run: await run("cargo", ["run", "--quiet", ...CARGO_OFFLINE], one),
      };
    }, 300_000);

    it("writes mod.rs and one module per server, named as Rust modules, which compile offline with no warnings", async () => {
      expect(generated.code, generated.stderr).toBe(0);
      expect(generated.stderr.split("\n").filter((line) => line.includes('"cycles"'))).toEqual(
        ["pair", "self"].map(
          (name) =>
            `warning: server "cycles" tool "${name}" at /outputSchema→#/$defs/A${name === "pair" ? "→#/$defs/B" : ""}/$ref: $ref "#/$defs/A" closes a reference cycle with no object or array in between; typed as any value`,
        ),
      );
      expect((await readdir(join(crate, "src/generated"))).sort()).toEqual(["cycles.rs", "mod.rs", "mod_.rs", "typed_fixture_server.rs"]);
      const mod = await readFile(join(crate, "src/generated/mod.rs"), "utf8");
      expect(mod.split("\n").filter((line) => line.startsWith("pub mod "))).toEqual([
        "pub mod cycles;",
        "pub mod mod_;",
        "pub mod typed_fixture_server;",
      ]);
      expect(build.code, build.stderr).toBe(0);
      expect(diagnostics(build.stderr)).toEqual([]);
    });

    it("builds with no warnings in a crate that calls one method, which reads a declared type from a text block of JSON", () => {
      expect(oneMethod.build.code, oneMethod.build.stderr).toBe(0);
      expect(diagnostics(oneMethod.build.stderr)).toEqual([]);
      expect([oneMethod.run.code, oneMethod.run.stdout]).toEqual([0, "get_stock: sku A1, quantity 2, location Some((1.5, -2.0))\n"]);
    });

    it("returns a declared type exactly, a learned one as Parsed, and the result as it came without a type", async () => {
      const code = await readFile(join(crate, "src/generated/typed_fixture_server.rs"), "utf8");
      const methods = [...code.matchAll(/pub async fn (\w+)\(.*\) -> Result<(.*), super::CompositionError> \{\n.*\n.*\n {8}(.*)\n/g)];
      expect(methods.map((method) => method.slice(1).join(" | "))).toEqual([
        // Not an object: a 2025-era server sends it as { "result": … }.
        "count | CountResult | super::declared(result.into_json().map(super::unwrap_result))",
        "get_stock | StockLevel | super::declared(result.into_json())",
        "learned | super::Parsed<LearnedResult> | Ok(super::learned(result))",
        "shapes | ShapesResult | super::declared(result.into_json())",
        "untyped | super::CallResult | Ok(result)",
      ]);
    });

    it("types the typed fixture server's results exactly: required, optional, null, integers, tuples, closed objects, enums", async () => {
      const code = await readFile(join(crate, "src/generated/typed_fixture_server.rs"), "utf8");
      expect(item(code, "StockLevel")).toBe(
        [
          "#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]",
          "#[serde(deny_unknown_fields)]",
          "pub struct StockLevel {",
          "    pub sku: String,",
          "    /// Bounds: ≥ 0 (not checked by serde).",
          "    pub quantity: i64,",
          '    #[serde(deserialize_with = "Option::deserialize")]',
          "    pub location: Option<(f64, f64)>,",
          // A derived struct with no flattened field would also read an array of its field values.
          "    #[serde(flatten)]",
          "    pub no_other_keys: NoOtherKeys,",
          "}\n",
        ].join("\n"),
      );
      expect(item(code, "GetStockArgs")).toBe(
        [
          "#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]",
          "pub struct GetStockArgs {",
          "    /// Stock keeping unit",
          "    pub sku: String,",
          '    #[serde(default, skip_serializing_if = "Option::is_none")]',
          "    pub warehouse: Option<GetStockArgsWarehouse>,",
          "}\n",
        ].join("\n"),
      );
      expect(item(code, "ShapesResultShape")).toBe(
        [
          "#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]",
          '#[serde(tag = "kind")]',
          "pub enum ShapesResultShape {",
          '    #[serde(rename = "circle")]',
          "    Circle(ShapesResultShapeCircle),",
          '    #[serde(rename = "rect")]',
          "    Rect(ShapesResultShapeRect),",
          "}\n",
        ].join("\n"),
      );
      // An integer is tried before a number would take it as a float.
      expect(item(code, "ShapesResultValue").split("\n").slice(2, -2)).toEqual([
        "pub enum ShapesResultValue {",
        "    Integer(i64),",
        "    String(String),",
        "    Number(f64),",
        "    Array(Vec<String>),",
      ]);
      expect(
        item(code, "ShapesResult")
          .split("\n")
          .filter((line) => line.trimStart().startsWith("pub ")),
      ).toEqual([
        "pub struct ShapesResult {",
        "    pub shape: ShapesResultShape,",
        "    pub value: ShapesResultValue,",
        "    pub r#type: String,",
        "    pub self_: Option<Option<ShapesResultSelfValue>>,",
        "    pub row_count: Option<String>,",
        "    pub row_count2: Option<i64>,",
        "    pub meta: Option<serde_json::Value>,",
        "    pub counts: Option<std::collections::BTreeMap<String, i64>>,",
        "    pub open: Option<ShapesResultOpen>,",
        // An open object keeps the keys it does not name: read and written back, nothing is lost.
        "    pub extra: serde_json::Map<String, serde_json::Value>,",
      ]);
      expect(code).toContain("pub type CountResult = Vec<i64>;");
      expect(code).toContain("super::declared(result.into_json().map(super::unwrap_result))");
    });

    it("boxes a reference only within a cycle, and makes a recursive alias a newtype", async () => {
      const code = await readFile(join(crate, "src/generated/cycles.rs"), "utf8");
      expect(code.split("\n").filter((line) => /Box<|pub struct \w+\(/.test(line))).toEqual([
        "pub struct L(pub Vec<L>);",
        "    pub next: Option<Box<Definition>>,",
        "    pub parent: Option<Option<Box<Node>>>,",
      ]);
    });

    it("names methods and types validly: keywords raw or suffixed, collisions numbered, leading digits prefixed", async () => {
      const code = await readFile(join(crate, "src/generated/mod_.rs"), "utf8");
      // Tools in bundle order: sorted by name.
      expect(code.match(/pub async fn \S+(?=\()/g)).toEqual([
        "pub async fn _2fa",
        "pub async fn r#type",
        "pub async fn gr_e",
        "pub async fn new2",
        "pub async fn self_",
        "pub async fn r#type2",
      ]);
      expect(generated.stderr.split("\n").filter((line) => line.includes('"mod"'))).toEqual([
        'warning: server "mod" tool "new": method name taken by another tool or type; using new2',
        'warning: server "mod" tool "type": method name taken by another tool or type; using r#type2',
        'warning: server "mod" tool "type": args name taken by another tool or type; using TypeArgs2',
        'warning: server "mod" tool "type": result name taken by another tool or type; using TypeResult2',
      ]);
    });

    it("keeps every hostile string data: the only functions are the client's, and no description is a doctest", async () => {
      const code = await readFile(join(crate, "src/hostile/hostile.rs"), "utf8");
      // Outside comments and string literals (whose every quote and backslash is escaped).
      const functions = code
        .split("\n")
        .filter((line) => !line.trimStart().startsWith("//"))
        .map((line) => line.replace(/"(?:[^"\\]|\\.)*"/g, '""'))
        .filter((line) => /\bfn\b/.test(line));
      expect(functions.length).toBe(1 + PAYLOADS.length + RUST_PAYLOADS.length);
      expect(functions.filter((line) => !/^ {4}pub (async )?fn \S+\((&self, args: \w+|client: &'a C)\)/.test(line))).toEqual([]);
      expect(doctests.code, doctests.stderr).toBe(0);
      expect(doctests.stdout.match(/^running \d+ tests?$/gm)).toEqual(["running 0 tests"]);
      await expect(access(join(crate, "pwned-fenced"))).rejects.toThrow();
      await expect(access(join(crate, "pwned-indented"))).rejects.toThrow();
      await expect(access(join(crate, "pwned-quoted"))).rejects.toThrow();
      await expect(access(join(crate, "pwned-quoted-indented"))).rejects.toThrow();
    });

    it("rewrites only what changed, refuses a file it did not write, removes its own leftover modules, and --check says so", async () => {
      const out = join(crate, "src/generated");
      const again = await runCli(["generate", "--lang", "rust", "--schema", join(crate, "bundle.json"), "-o", out, "--check"]);
      expect([again.code, again.stdout.trim()]).toEqual([0, `${out} is up to date`]);

      const fewer = join(crate, "fewer.json");
      await writeFile(fewer, JSON.stringify({ ...BUNDLE, servers: BUNDLE.servers.slice(0, 1) }));
      const stale = await runCli(["generate", "--lang", "rust", "--schema", fewer, "-o", out, "--check"]);
      expect(stale.code).toBe(1);
      // Every module names its bundle in its banner.
      expect(stale.stdout.split("\n").filter((line) => line.startsWith("stale:"))).toEqual([
        `stale: ${join(out, "cycles.rs")}`,
        `stale: ${join(out, "mod.rs")}`,
        `stale: ${join(out, "mod_.rs")}`,
        `stale: ${join(out, "typed_fixture_server.rs")}`,
      ]);

      const foreign = await outputDir("rust-foreign");
      await writeFile(join(foreign, "mod.rs"), "pub mod mine;\n");
      const refused = await runCli(["generate", "--lang", "rust", "--schema", fewer, "-o", foreign]);
      expect([refused.code, refused.stderr.trim()]).toEqual([
        1,
        `pmcp: ${join(foreign, "mod.rs")} not written by pmcp generate (no generated banner); not replacing it: move it away or choose another -o`,
      ]);
      expect(await readdir(foreign)).toEqual(["mod.rs"]);

      const shrinking = await outputDir("rust-leftover");
      expect((await runCli(["generate", "--lang", "rust", "--schema", join(crate, "bundle.json"), "-o", shrinking])).code).toBe(0);
      const removed = await runCli(["generate", "--lang", "rust", "--schema", fewer, "-o", shrinking]);
      expect(removed.code, removed.stderr).toBe(0);
      expect(removed.stdout.split("\n").filter((line) => line.startsWith("removed "))).toEqual(
        ["mod_.rs", "typed_fixture_server.rs"].map(
          (file) => `removed ${join(shrinking, file)}: generated earlier for a server that is not in this bundle`,
        ),
      );
      expect((await readdir(shrinking)).sort()).toEqual(["cycles.rs", "mod.rs"]);
    });

    it("names no module like a crate mod.rs names (the crate build above proves mod.rs still finds them)", () => {
      const { files, warnings } = renderRust(HOSTILE, OPTIONS);
      expect(files.map((file) => file.path).filter((path) => !["hostile.rs", "generic.rs", "wide.rs"].includes(path))).toEqual([
        "serde2.rs",
        "serde_json2.rs",
        "std2.rs",
        "mod.rs",
      ]);
      expect(warnings.filter((warning) => warning.tool === "").map((warning) => `${warning.server}: ${warning.message}`)).toEqual([
        "serde: its Rust module is serde2.rs",
        "serde_json: its Rust module is serde_json2.rs",
        "std: its Rust module is std2.rs",
      ]);
    });

    it("types an object of more properties than a struct may have as a map, with a note and a warning (the crate above builds)", () => {
      const rendered = renderRust({ version: "1.0", servers: [{ id: "wide", tools: [WIDE] }] }, OPTIONS);
      const code = rendered.files.find((file) => file.path === "wide.rs")!.content;
      expect(code.split("\n").filter((line) => line.startsWith("pub type WideResult"))).toEqual([
        "pub type WideResult = serde_json::Map<String, serde_json::Value>;",
      ]);
      expect(rendered.warnings).toEqual([
        {
          server: "wide",
          tool: "wide",
          pointer: "/outputSchema",
          message:
            "WideResult: An object of 6000 properties, more than a Rust struct here may have (2000): a map of its keys' JSON values.",
        },
      ]);
      expect(build.code, build.stderr).toBe(0);
    });

    it("leaves out a property whose key holds a lone surrogate, with a warning: no Rust string can name it", () => {
      const schema = { type: "object", properties: { "a\ud800": { type: "string" }, ok: { type: "string" } } };
      const rendered = renderRust({ version: "1.0", servers: [{ id: "keys", tools: [tool("keys", schema)] }] }, OPTIONS);
      const code = rendered.files.find((file) => file.path === "keys.rs")!.content;
      expect(
        item(code, "KeysResult")
          .split("\n")
          .filter((line) => line.trimStart().startsWith("pub ")),
      ).toEqual(["pub struct KeysResult {", "    pub ok: Option<String>,", "    pub extra: serde_json::Map<String, serde_json::Value>,"]);
      expect(rendered.warnings.map((warning) => warning.message)).toEqual([
        'KeysResult: property "a\\ud800" holds a lone surrogate, which serde_json neither reads nor writes: left out',
      ]);
    });

    it("names no type C, the client's type parameter, which would stand for it in the signatures", () => {
      const generic = renderRust(HOSTILE, OPTIONS).files.find((file) => file.path === "generic.rs")!.content;
      expect(generic.match(/pub (struct|async fn) [^{]*/g)).toEqual([
        "pub struct C2 ",
        "pub struct GenericClient<'a, C: super::CompositionClient> ",
        "pub async fn c(&self, args: CArgs) -> Result<C2, super::CompositionError> ",
      ]);
    });

    it("takes only typescript or rust, and no TypeScript-only flag with rust", async () => {
      const result = await runInProcess(["generate", "--lang", "go"]);
      expect(result.code).toBe(2);
      expect(result.stderr).toBe('pmcp: --lang must be one of "typescript", "rust", got "go"\npmcp: run \'pmcp --help\' for usage\n');
      const templates = await runInProcess(["generate", "--lang", "rust", "--templates", "t", "--runtime-import", "x"]);
      expect([templates.code, templates.stderr.split("\n")[0]]).toEqual([
        2,
        "pmcp: --templates and --runtime-import apply to TypeScript output only, not --lang rust",
      ]);
    });
  },
);
