import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { lintSchema } from "../src/lint/lint.js";
import { PROFILES } from "../src/normalize/normalize.js";
import { ROOT, exportAllServers, runCli } from "./helpers/cli.js";


let dir: string;
let bundle: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-lint-"));
  bundle = join(dir, "bundle.json");
  const exported = await exportAllServers(dir, bundle);
  expect(exported.code, exported.stderr).toBe(0);
});

describe("lint rules", () => {
  it.each([
    ["gemini", { type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "null" }] } } }, "null-union", true],
    ["gemini", { type: "object", properties: { a: { type: ["string", "null"] } } }, "type-array", true],
    ["openai-strict", { type: "object", properties: { p: { type: "array", prefixItems: [{ type: "number" }] } } }, "tuple", true],
    ["openai", { type: "object", properties: { list: { type: "array" } } }, "array-without-items", true],
    ["openai", { type: "object" }, "object-without-properties", true],
    ["anthropic", { anyOf: [{ type: "object" }, { type: "string" }] }, "root-combinator", false],
    ["openai-strict", { type: "object", properties: { d: { type: "string", format: "uri" } } }, "unsupported-format", true],
    ["gemini", { type: "object", properties: { n: { enum: [1, 2] } } }, "non-string-enum", true],
    ["openai-strict", { type: "object", properties: { x: { $ref: "https://example.com/x.json" } } }, "remote-ref", false],
  ])("%s: %j → %s (fixable: %s)", (profile, schema, rule, fixable) => {
    const finding = lintSchema(schema, profile as (typeof PROFILES)[number]).find((candidate) => candidate.rule === rule);
    expect(finding).toBeDefined();
    expect(finding?.fixable).toBe(fixable);
  });

  it("a plain schema has no findings where it is accepted, and strict modes ask for closed objects", () => {
    const plain = { type: "object", properties: { q: { type: "string", description: "query" } }, required: ["q"] };
    for (const profile of PROFILES.filter((name) => !name.endsWith("-strict"))) expect(lintSchema(plain, profile), profile).toEqual([]);
    for (const profile of ["openai-strict", "anthropic-strict"] as const) {
      expect(lintSchema(plain, profile).map((finding) => [finding.rule, finding.fixable])).toEqual([["strict-additional-properties", true]]);
    }
  });

  it("the CLI's profile list is the normalizer's", async () => {
    const text = await readFile(join(ROOT, "src/cli.ts"), "utf8");
    expect(text).toContain(`const PROFILE_NAMES = ${JSON.stringify(PROFILES).replace(/,/g, ", ")} as const;`);
  });
});

describe("pmcp schema lint on the fixture and reference servers", () => {
  it("reports per server, tool and pointer, exits 1 on errors, and normalize fixes what it says it fixes", async () => {
    const result = await runCli(["schema", "lint", bundle, "--profile", "gemini,openai-strict", "--json"]);
    expect(result.code).toBe(1);
    const { findings } = JSON.parse(result.stdout) as { findings: { server: string; tool: string; rule: string; profile: string; pointer: string; fixable: boolean }[] };
    const seen = new Set(findings.map((finding) => `${finding.profile} ${finding.server}/${finding.tool} ${finding.rule}`));
    expect(seen).toContain("gemini listing-fixture/class null-union");
    expect(seen).toContain("openai-strict listing-fixture/class root-not-object");
    expect(seen).toContain("openai-strict typed-fixture-server/get_stock tuple");
    expect(seen).toContain("gemini secure-filesystem-server/read_text_file schema-metadata");
    expect(seen).toContain("openai-strict memory-server/create_entities strict-additional-properties");

    for (const profile of ["gemini", "openai-strict"]) {
      const normalized = join(dir, `${profile}.json`);
      expect((await runCli(["schema", "normalize", bundle, "--profile", profile, "-o", normalized, "--quiet"])).code).toBe(0);
      const again = JSON.parse((await runCli(["schema", "lint", normalized, "--profile", profile, "--json"])).stdout) as { findings: { server: string; tool: string; rule: string }[] };
      const key = (finding: { server: string; tool: string; rule: string }) => `${finding.server}/${finding.tool} ${finding.rule}`;
      const fixableBefore = new Set(findings.filter((finding) => finding.profile === profile && finding.fixable).map(key));
      expect(again.findings.filter((finding) => fixableBefore.has(key(finding)))).toEqual([]);
    }

    const github = await runCli(["schema", "lint", bundle, "--profile", "gemini", "--format", "github"]);
    expect(github.stdout).toMatch(/^::error title=gemini null-union%3A listing-fixture\/class \/inputSchema\/properties\/filters::/m);
    const bad = await runCli(["schema", "lint", bundle, "--profile", "gpt"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--profile: unknown gpt/);
  });
});
