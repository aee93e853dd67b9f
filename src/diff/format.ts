import type { BundleChange } from "./bundle-diff.js";
import type { ChangeLevel } from "./schema-diff.js";

function where(change: BundleChange): string {
  return `${change.server}${change.tool === undefined ? "" : `/${change.tool}`}${change.pointer === "/" ? "" : ` ${change.pointer}`}`;
}

/** One line per change: `BREAKING  inventory/get_stock /outputSchema/properties/q: …`. */
export function formatText(changes: readonly BundleChange[]): string {
  if (changes.length === 0) return "no changes\n";
  return changes.map((change) => `${change.level.toUpperCase().padEnd(9)} ${where(change)}: ${change.message} [${change.rule}]\n`).join("");
}

export function formatJson(changes: readonly BundleChange[]): string {
  const count = (level: ChangeLevel) => changes.filter((change) => change.level === level).length;
  return `${JSON.stringify({ summary: { breaking: count("breaking"), dangerous: count("dangerous"), safe: count("safe") }, changes }, null, 2)}\n`;
}

/** GitHub Actions workflow commands; `%`, CR, LF and (in properties) `:` and `,` are escaped as GitHub requires. */
export function formatGithub(changes: readonly BundleChange[]): string {
  const data = (text: string) => text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
  const property = (text: string) => data(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
  const command: Record<ChangeLevel, string> = { breaking: "error", dangerous: "warning", safe: "notice" };
  return changes
    .map(
      (change) =>
        `::${command[change.level]} title=${property(`${change.level} change: ${where(change)}`)}::${data(`${change.message} [${change.rule}]`)}\n`,
    )
    .join("");
}

/** JUnit XML: one test case per change; the levels at or above `failOn` are failures. */
export function formatJunit(changes: readonly BundleChange[], failOn: ChangeLevel): string {
  const xml = (text: string) =>
    text
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this takes out
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");
  const failing = (level: ChangeLevel) => level === "breaking" || (failOn === "dangerous" && level === "dangerous");
  const cases = changes.map((change) => {
    const name = xml(`${where(change)}: ${change.message}`);
    const body = failing(change.level) ? `<failure type="${change.level}" message="${xml(change.rule)}">${name}</failure>` : "";
    return `    <testcase classname="${xml(`${change.server}${change.tool ? `.${change.tool}` : ""}`)}" name="${name}">${body}</testcase>\n`;
  });
  const failures = changes.filter((change) => failing(change.level)).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n  <testsuite name="pmcp schema diff" tests="${changes.length}" failures="${failures}">\n${cases.join("")}  </testsuite>\n</testsuites>\n`;
}
