import { mkdtemp, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixtureCommand, runCli } from "../helpers/cli.js";

describe("pmcp schema diff on two real exports of a server whose tools changed", () => {
  it("lists every change with its level and exits by --fail-on", async () => {
    const dir = await mkdtemp(join(tmpdir(), "pmcp-diff-"));
    const v1 = join(dir, "v1.json");
    const v2 = join(dir, "v2.json");
    expect((await runCli(["schema", "export", "--stdio", fixtureCommand("listing-server.mjs"), "--id", "listing", "-o", v1])).code).toBe(0);
    expect(
      (await runCli(["schema", "export", "--stdio", fixtureCommand("listing-server.mjs", "v2"), "--id", "listing", "-o", v2])).code,
    ).toBe(0);

    const result = await runCli(["schema", "diff", v1, "--schema", v2, "--json"]);
    expect(result.code).toBe(1);
    const { summary, changes } = JSON.parse(result.stdout);
    const seen = changes.map(
      (change: { level: string; tool?: string; rule: string; pointer: string }) =>
        `${change.level} ${change.tool ?? ""} ${change.rule} ${change.pointer}`,
    );
    expect(seen).toEqual(
      expect.arrayContaining([
        "breaking odd_dialect tool-removed /",
        "safe restore_record tool-added /",
        "breaking delete_record required-property-added /inputSchema/properties/reason",
        "safe delete_record property-added /outputSchema/properties/undo",
        "breaking delete_record property-now-required /inputSchema/properties/id",
        "dangerous class readOnlyHint-changed /annotations/readOnlyHint",
      ]),
    );
    expect(summary.breaking).toBeGreaterThanOrEqual(2);
    expect(result.stderr.trim()).toMatch(/^pmcp: \d+ breaking changes?$/);

    const same = await runCli(["schema", "diff", v1, "--schema", v1]);
    expect(same).toMatchObject({ code: 0, stdout: "no changes\n" });
    const safeOnly = await runCli(["schema", "diff", v2, "--schema", v2, "--fail-on", "dangerous", "--format", "junit"]);
    expect(safeOnly.code).toBe(0);
    expect(safeOnly.stdout).toContain('tests="0" failures="0"');
    expect(await readFile(v1, "utf8")).not.toBe(await readFile(v2, "utf8"));
  });
});
