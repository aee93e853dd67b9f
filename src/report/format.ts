import { QUALITIES, SOURCES } from "../bundle/quality.js";
import { count } from "../count.js";
import type { QualityReport, ReportRow } from "./quality-report.js";

const QUALITY_COLUMNS = [...QUALITIES].reverse();
const HEADERS = [
  "server",
  "tools",
  ...SOURCES,
  "no JSON",
  ...QUALITY_COLUMNS.map((quality) => `q:${quality}`),
  "observations",
  "list bytes",
  "≈ tokens",
];

function cells(name: string, row: ReportRow): string[] {
  return [
    name,
    String(row.tools),
    ...SOURCES.map((source) => String(row.bySource[source])),
    String(row.noJson),
    ...QUALITY_COLUMNS.map((quality) => String(row.byQuality[quality])),
    String(row.observations),
    String(row.listBytes),
    String(row.listTokens),
  ];
}

function rows(report: QualityReport): string[][] {
  return [...report.servers.map((server) => cells(server.id, server)), cells("total", report.total)];
}

function driftLines(report: QualityReport): string[] {
  return report.drift.map(
    (item) =>
      `${item.server}/${item.tool} at ${item.path || "/"}: ${item.message} (${item.count} of ${count(item.observations, "observation")})`,
  );
}

function noJsonLines(report: QualityReport): string[] {
  return report.noJson.map(
    (item) =>
      `${item.server}/${item.tool}: ${Object.entries(item.content)
        .map(([kind, results]) => `${kind} in ${results}`)
        .join(", ")}`,
  );
}

const NO_JSON_TITLE = "Unknown because they answer without JSON (results holding each content type; no schema to learn):";

/** A terminal table: numbers right-aligned, then the drift warnings. */
export function formatTable(report: QualityReport): string {
  const table = [HEADERS, ...rows(report)];
  const widths = HEADERS.map((_, column) => Math.max(...table.map((row) => [...row[column]!].length)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join("  ")
      .trimEnd();
  const drift = driftLines(report);
  const noJson = noJsonLines(report);
  return `${[
    ...table.map(line),
    ...(noJson.length === 0 ? [] : ["", NO_JSON_TITLE, ...noJson.map((text) => `  ${text}`)]),
    ...(drift.length === 0
      ? []
      : ["", "Drift (observed results that break the declared output schema):", ...drift.map((text) => `  ${text}`)]),
  ].join("\n")}\n`;
}

/** A GitHub-flavoured Markdown table; server ids and messages are escaped so they stay text. */
export function formatMarkdown(report: QualityReport): string {
  const markdown = (text: string) => text.replace(/[\\`*_[\]<>|]/g, (char) => `\\${char}`).replace(/\r?\n/g, " ");
  const row = (values: string[]) => `| ${values.map(markdown).join(" | ")} |`;
  const drift = driftLines(report);
  const noJson = noJsonLines(report);
  return `${[
    "# Schema quality",
    "",
    row(HEADERS),
    row(HEADERS.map((_, index) => (index === 0 ? "---" : "---:"))),
    ...rows(report).map(row),
    ...(noJson.length === 0 ? [] : ["", "## Answers without JSON", "", NO_JSON_TITLE, "", ...noJson.map((text) => `- ${markdown(text)}`)]),
    ...(drift.length === 0 ? [] : ["", "## Drift", "", ...drift.map((text) => `- ${markdown(text)}`)]),
  ].join("\n")}\n`;
}
