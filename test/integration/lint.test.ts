import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { runCli } from "../helpers/cli.js";

/** The fixture and reference servers, exported once per run by the global setup; read only. */
const bundle = inject("referenceBundle");
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-lint-"));
});

describe("pmcp schema lint on the fixture and reference servers", () => {
  it("reports per server, tool and pointer, exits 1 on errors, and normalize fixes what it says it fixes", async () => {
    const result = await runCli(["schema", "lint", "--schema", bundle, "--profile", "gemini,openai-strict", "--json"]);
    expect(result.code).toBe(1);
    const { findings } = JSON.parse(result.stdout) as {
      findings: { server: string; tool: string; rule: string; profile: string; pointer: string; fixable: boolean; severity: string }[];
    };
    const seen = new Set(findings.map((finding) => `${finding.profile} ${finding.server}/${finding.tool} ${finding.rule}`));
    expect(seen).toContain("gemini listing-fixture/class null-union");
    expect(seen).toContain("openai-strict listing-fixture/class root-not-object");
    expect(seen).toContain("openai-strict typed-fixture-server/get_stock tuple");
    expect(seen).toContain("gemini secure-filesystem-server/read_text_file schema-metadata");
    expect(seen).toContain("openai-strict memory-server/create_entities strict-additional-properties");

    // What the model sees changed is no finding: the same count of errors, and a list of its own.
    const { changes, errors } = JSON.parse(result.stdout) as {
      changes: { server: string; tool: string; profile: string }[];
      errors: number;
    };
    expect(errors).toBe(findings.filter((finding) => finding.severity === "error").length);
    expect(changes.map((change) => `${change.profile} ${change.server}/${change.tool}`)).toEqual([
      "openai-strict listing-fixture/class",
      "openai-strict listing-fixture/delete_record",
      ...[
        "get-annotated-message",
        "get-resource-links",
        "get-resource-reference",
        "gzip-file-as-resource",
        "simulate-research-query",
        "trigger-long-running-operation",
      ].map((tool) => `openai-strict mcp-servers-everything/${tool}`),
      ...["directory_tree", "edit_file", "list_directory_with_sizes", "read_file", "read_text_file", "search_files"].map(
        (tool) => `openai-strict secure-filesystem-server/${tool}`,
      ),
      "openai-strict typed-fixture-server/get_stock",
    ]);
    expect(changes[0]).toEqual({
      server: "listing-fixture",
      tool: "class",
      profile: "openai-strict",
      name: "class",
      strict: true,
      changes: [
        {
          kind: "optional-to-nullable",
          pointer: "/inputSchema/properties/filters/items",
          message: "optional properties value became required and nullable (send null to omit)",
        },
        {
          kind: "optional-to-nullable",
          pointer: "/inputSchema",
          message: "optional properties filters became required and nullable (send null to omit)",
        },
      ],
    });
    const line = "optional properties as required+nullable in 2 objects (/inputSchema/properties/filters/items, /inputSchema)";
    const text = await runCli(["schema", "lint", "--schema", bundle, "--profile", "openai-strict"]);
    const classLines = text.stdout.split("\n").filter((entry) => entry.includes(" listing-fixture/class"));
    expect(classLines.at(-1)).toBe(`NOTICE  openai-strict    listing-fixture/class: the model sees: ${line}`);
    expect(classLines.slice(0, -1).every((entry) => /^(ERROR|WARNING) /.test(entry))).toBe(true);

    for (const profile of ["gemini", "openai-strict"]) {
      const normalized = join(dir, `${profile}.json`);
      expect((await runCli(["schema", "normalize", "--schema", bundle, "--profile", profile, "-o", normalized, "--quiet"])).code).toBe(0);
      const again = JSON.parse((await runCli(["schema", "lint", "--schema", normalized, "--profile", profile, "--json"])).stdout) as {
        findings: { server: string; tool: string; rule: string }[];
      };
      const key = (finding: { server: string; tool: string; rule: string }) => `${finding.server}/${finding.tool} ${finding.rule}`;
      const fixableBefore = new Set(findings.filter((finding) => finding.profile === profile && finding.fixable).map(key));
      expect(again.findings.filter((finding) => fixableBefore.has(key(finding)))).toEqual([]);
    }

    const github = await runCli(["schema", "lint", "--schema", bundle, "--profile", "gemini", "--format", "github"]);
    expect(github.stdout).toMatch(/^::error title=gemini null-union%3A listing-fixture\/class \/inputSchema\/properties\/filters::/m);
    const strictGithub = await runCli(["schema", "lint", "--schema", bundle, "--profile", "openai-strict", "--format", "github"]);
    expect(strictGithub.stdout.split("\n")).toContain(`::notice title=openai-strict model sees%3A listing-fixture/class::${line}`);
    const bad = await runCli(["schema", "lint", "--schema", bundle, "--profile", "gpt"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--profile names unknown providers: gpt \(choose from /);
  });

  it("reports what the model sees changed without failing: a bundle with no findings exits 0", async () => {
    const tool = { name: "search", inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] } };
    const clean = join(dir, "renamed.json");
    await writeFile(
      clean,
      JSON.stringify({
        version: "1.0",
        servers: [
          { id: "docs", tools: [tool] },
          { id: "wiki", tools: [tool] },
        ],
      }),
    );
    const result = await runCli(["schema", "lint", "--schema", clean, "--profile", "gemini"]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        'NOTICE  gemini           docs/search: the model sees: renamed "docs__search"',
        'NOTICE  gemini           wiki/search: the model sees: renamed "wiki__search"',
        "no findings for gemini",
        "",
      ].join("\n"),
    );
  });
});
