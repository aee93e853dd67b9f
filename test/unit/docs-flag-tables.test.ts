import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { commandPaths } from "../../src/cli/commands.js";
import { flagTables, tablesOn, withFlagTables } from "../../src/cli/flag-tables.js";
import { DOC_PAGES } from "../helpers/readme.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PAGES = DOC_PAGES.map((page) => ({ page, text: readFileSync(join(ROOT, page), "utf8") }));

describe("the docs' flag tables", () => {
  const tables = flagTables();

  it("are as the commands declare their flags (npm run docs writes them)", () => {
    const stale = PAGES.filter(({ text }) => withFlagTables(text, tables) !== text).map(({ page }) => page);
    expect(stale).toEqual([]);
  });

  it("stand once each: the flags every command takes, and each command's", () => {
    const shown = PAGES.flatMap(({ text }) => tablesOn(text)).sort();
    expect(shown).toEqual(["", ...commandPaths().map(({ path }) => path)].sort());
  });

  it("are made anew between a page's markers, and a marker naming no command is refused", () => {
    const page = "# x\n\n<!-- flags: pmcp schema validate -->\nold\n<!-- /flags -->\n\nafter\n";
    expect(withFlagTables(page, tables)).toBe(
      `# x\n\n<!-- flags: pmcp schema validate -->\n${tables.get("schema validate")}<!-- /flags -->\n\nafter\n`,
    );
    expect(() => withFlagTables("<!-- flags: pmcp schema nothing -->\n<!-- /flags -->", tables)).toThrow(
      "<!-- flags: pmcp schema nothing --> names no command of pmcp",
    );
  });

  it("say what a flag takes and its default, and put positionals apart", () => {
    expect(tables.get("schema diff")).toBe(
      [
        "| Argument | Description |",
        "| --- | --- |",
        "| `<old>` | The bundle (or PMCP files) before |",
        "",
        "| Flag | Value | Default | Description |",
        "| --- | --- | --- | --- |",
        "| `--schema` | text, repeatable |  | The bundle (or PMCP files) after (default: pmcp.config bundle, else schemas/mcp-bundle.json) |",
        '| `--fail-on` | `breaking`, `dangerous` | `"breaking"` | Exit 1 when a change at or above this level is found |',
        '| `--format` | `text`, `github`, `junit` | `"text"` | Output: text, GitHub annotations or JUnit XML (--json for JSON) |',
        "",
      ].join("\n"),
    );
  });
});
