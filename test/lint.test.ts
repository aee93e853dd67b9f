import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { runCli } from "./helpers/cli.js";

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
      findings: { server: string; tool: string; rule: string; profile: string; pointer: string; fixable: boolean }[];
    };
    const seen = new Set(findings.map((finding) => `${finding.profile} ${finding.server}/${finding.tool} ${finding.rule}`));
    expect(seen).toContain("gemini listing-fixture/class null-union");
    expect(seen).toContain("openai-strict listing-fixture/class root-not-object");
    expect(seen).toContain("openai-strict typed-fixture-server/get_stock tuple");
    expect(seen).toContain("gemini secure-filesystem-server/read_text_file schema-metadata");
    expect(seen).toContain("openai-strict memory-server/create_entities strict-additional-properties");

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
    const bad = await runCli(["schema", "lint", "--schema", bundle, "--profile", "gpt"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--profile: unknown gpt/);
  });
});
