import { QUALITIES, SOURCES } from "../bundle/quality.js";
import { qualityChangeLine, toolLabel } from "../bundle/quality-changes.js";
import type { QualityCounts, QualitySummary } from "../bundle/quality-summary.js";
import { count } from "../count.js";
import type { QualityReport, ReportRow } from "./quality-report.js";
import type { ToolName } from "./recommendations.js";

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

/** The total's sources and qualities as percentages of its tools, under their columns. */
function percentCells(total: ReportRow): string[] {
  return [
    "total %",
    "",
    ...SOURCES.map((source) => percent(total.percentBySource[source])),
    "",
    ...QUALITY_COLUMNS.map((quality) => percent(total.percentByQuality[quality])),
    "",
    "",
    "",
  ];
}

function percent(value: number): string {
  return `${value.toFixed(1)}%`;
}

function rows(report: QualityReport): string[][] {
  return [...report.servers.map((server) => cells(server.id, server)), cells("total", report.total), percentCells(report.total)];
}

/**
 * The counts of a generation, per server and in total, on one line each, leaving out what counts
 * none: `weather: 6 tools, by source: inferred 2 (33.3%), unknown 4 (66.7%); by quality: …`.
 */
export function qualitySummaryLines(summary: QualitySummary): string[] {
  const shares = (counts: Record<string, number>, percents: Record<string, number>, order: readonly string[]) =>
    order
      .filter((key) => counts[key]! > 0)
      .map((key) => `${key} ${counts[key]} (${percent(percents[key]!)})`)
      .join(", ");
  const line = (name: string, counts: QualityCounts) =>
    counts.tools === 0
      ? `${name}: 0 tools`
      : `${name}: ${count(counts.tools, "tool")}, by source: ${shares(counts.bySource, counts.percentBySource, SOURCES)}; by quality: ${shares(counts.byQuality, counts.percentByQuality, QUALITY_COLUMNS)}`;
  return [...summary.servers.map((server) => line(server.id, server)), line("total", summary.total)];
}

/** Most names a recommendation lists in text; `--json` has them all. */
const LISTED_NAMES = 10;

function names(tools: readonly ToolName[]): string {
  const shown = tools.slice(0, LISTED_NAMES).map((tool) => toolLabel(tool.server, tool.tool));
  return tools.length > LISTED_NAMES ? `${shown.join(", ")} and ${tools.length - LISTED_NAMES} more` : shown.join(", ");
}

interface Section {
  title: string;
  /** What the section says when it has no lines. */
  empty: string;
  /** `code`: a shell command. */
  lines: { text: string; code?: boolean }[];
  numbered?: boolean;
}

/** The report's closing sections. */
function closingSections(report: QualityReport): Section[] {
  const { recommendations: advice } = report;
  const recommendations = [
    ...advice.discover.flatMap(({ server, tools, command }) => [
      {
        text: `Safe to discover (unknown; read-only, no required arguments): ${names(tools.map((tool) => ({ server, tool })))}`,
      },
      command === null ? { text: `No command: the bundle does not record how ${server} was reached` } : { text: command, code: true },
    ]),
    ...(advice.drift.length === 0 ? [] : [{ text: `Fix the drift (results break the declared output schema): ${names(advice.drift)}` }]),
    ...(advice.noJson.length === 0
      ? []
      : [{ text: `Declare an output schema on the server (they answer without JSON): ${names(advice.noJson)}` }]),
    ...(advice.moreObservations.length === 0
      ? []
      : [{ text: `Observe more (quality low: under 10 consistent observations): ${names(advice.moreObservations)}` }]),
  ];
  return [
    {
      title: "Recent improvements (newest first)",
      empty: report.recentImprovements === null ? "none recorded (no index.ts generated with a record in the output folder, -o)" : "none",
      lines: (report.recentImprovements ?? []).map((change) => ({ text: qualityChangeLine(change) })),
    },
    { title: "Recommendations", empty: "none", lines: recommendations },
    {
      title: "Most used tools (observed results)",
      empty: "none observed",
      lines: report.mostUsed.map((usage) => ({ text: `${toolLabel(usage.server, usage.tool)}: ${usage.calls}` })),
      numbered: true,
    },
  ];
}

function driftLines(report: QualityReport): string[] {
  return report.drift.map(
    (item) =>
      `${toolLabel(item.server, item.tool)} at ${item.path || "/"}: ${item.message} (${item.count} of ${count(item.observations, "observation")})`,
  );
}

function noJsonLines(report: QualityReport): string[] {
  return report.noJson.map(
    (item) =>
      `${toolLabel(item.server, item.tool)}: ${Object.entries(item.content)
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
    ...closingSections(report).flatMap((section) =>
      section.lines.length === 0
        ? ["", `${section.title}: ${section.empty}`]
        : [
            "",
            `${section.title}:`,
            ...section.lines.map((entry, index) => `${entry.code ? "    " : "  "}${section.numbered ? `${index + 1}. ` : ""}${entry.text}`),
          ],
    ),
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
    ...closingSections(report).flatMap((section) => [
      "",
      `## ${section.title}`,
      "",
      ...(section.lines.length === 0 ? [markdown(section.empty)] : markdownLines(section, markdown)),
    ]),
  ].join("\n")}\n`;
}

/** List items, each command in a shell code block of its own: as typed, unescaped (commands hold no line break: see discoverCommand). */
function markdownLines(section: Section, markdown: (text: string) => string): string[] {
  return section.lines.flatMap((entry, index) =>
    entry.code ? ["", "```sh", entry.text, "```"] : [`${section.numbered ? `${index + 1}.` : "-"} ${markdown(entry.text)}`],
  );
}
