import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import type { Bundle, BundleServer, Tool } from "../../src/bundle/types.js";
import { splitCommandLine } from "../../src/commands/shared/stdio-command-line.js";
import { recommendationsFor } from "../../src/report/recommendations.js";

// The report's discover line read back by a real shell (sh): the rest of the recommendations are pure,
// in test/unit/quality-history.test.ts.

const readOnly = (name: string): Tool => ({ name, annotations: { readOnlyHint: true } });

function bundleOf(...servers: BundleServer[]): Bundle {
  return { version: "1.0", servers };
}

describe("recommendations", () => {
  it("quotes the server's command for a shell, so a shell gives back exactly the words recorded", () => {
    const args = ["it's $(touch pwned) `id` ${HOME}", "a b", "", "!x", "*", "a\\b", '"q"', "#c", "~", "x;y|z&"];
    const server: BundleServer = { id: "s", endpoint: { transport: "stdio", command: "/opt/my server/run", args }, tools: [readOnly("t")] };
    const command = recommendationsFor(bundleOf(server)).discover[0]!.command!;
    const words = (line: string) =>
      execFileSync("sh", ["-c", `printf '%s\\0' ${line}`], { encoding: "utf8" })
        .split("\0")
        .slice(0, -1);
    const outer = words(command);
    expect(outer).toEqual(["pmcp", "schema", "discover", "--stdio", expect.any(String), "--id", "s", "--observations", "observations/"]);
    expect(words(outer[4]!)).toEqual(["/opt/my server/run", ...args]);
    // pmcp reads the --stdio value as a shell would (its ${VAR} then interpolated).
    expect(splitCommandLine(outer[4]!).recorded).toEqual({ command: "/opt/my server/run", args });
    const broken: BundleServer = { ...server, endpoint: { transport: "stdio", command: "run", args: ["a\nb"] } };
    expect(recommendationsFor(bundleOf(broken)).discover).toEqual([{ server: "s", tools: ["t"], command: null }]);
    expect(recommendationsFor(bundleOf({ id: "s", tools: [readOnly("t")] })).discover[0]!.command).toBeNull();
  });
});
