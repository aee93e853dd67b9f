import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { commandPaths } from "../../src/cli/commands.js";
import { docsTables, tablesOn, withDocsTables } from "../../src/cli/docs-tables.js";
import { CONFIG_KEYS } from "../../src/config/keys.js";
import { DOC_PAGES } from "../helpers/readme.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const PAGES = DOC_PAGES.map((page) => ({ page, text: readFileSync(join(ROOT, page), "utf8") }));

describe("the docs' generated tables", () => {
  const tables = docsTables();

  it("are as the commands declare their flags and CONFIG_KEYS the config (npm run docs writes them)", () => {
    const stale = PAGES.filter(({ text }) => withDocsTables(text, tables) !== text).map(({ page }) => page);
    expect(stale).toEqual([]);
  });

  it("stand once each: the flags every command takes, each command's, and the config keys", () => {
    const shown = PAGES.flatMap(({ text }) => tablesOn(text)).sort();
    expect(shown).toEqual(["config keys", "flags: pmcp", ...commandPaths().map(({ path }) => `flags: pmcp ${path}`)].sort());
  });

  it("are made anew between a page's markers, and a marker naming no command is refused", () => {
    const page = "# x\n\n<!-- flags: pmcp schema validate -->\nold\n<!-- /generated -->\n\nafter\n";
    expect(withDocsTables(page, tables)).toBe(
      `# x\n\n<!-- flags: pmcp schema validate -->\n${tables.get("flags: pmcp schema validate")}<!-- /generated -->\n\nafter\n`,
    );
    expect(() => withDocsTables("<!-- flags: pmcp schema nothing -->\n<!-- /generated -->", tables)).toThrow(
      "<!-- flags: pmcp schema nothing --> names no table: no such command of pmcp",
    );
  });

  it("say what a flag takes and its default, and put positionals apart", () => {
    expect(tables.get("flags: pmcp schema diff")).toBe(
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

  it("give the config a row per key of CONFIG_KEYS, in its order, with the keys inside a key named", () => {
    const keys = (tables.get("config keys") ?? "")
      .split("\n")
      .slice(2, -1)
      .map((row) => row.split(" | ")[0]);
    expect(keys).toEqual([
      "| `servers`",
      "| `bundle`",
      "| `output`",
      "| `rust: { output }`",
      "| `runtimeImport`",
      "| `strictObjects`",
      "| `templates`",
      "| `observe: { dir }`",
      "| `exec: { maxTimeMs, maxHeapMb, maxCalls, maxConcurrentCalls, maxOutputBytes, maxPrograms }`",
      "| `serve: { auth: { verifier, authorizationServers, scopes?, resource? } }`",
    ]);
    expect(keys.map((key) => /`(\w+)/.exec(key ?? "")?.[1])).toEqual(Object.keys(CONFIG_KEYS));
  });
});
