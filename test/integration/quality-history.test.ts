import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, fixtureCommand, runCli, runInProcess } from "../helpers/cli.js";
import { outputDir } from "../helpers/typescript.js";

/**
 * The weather server learned in two rounds, generated after each: what `pmcp generate` prints and
 * records in index.ts, and what `pmcp report` makes of that history and of the bundle.
 */
let dir: string;
let bundle: string;
let out: string;
let logs: string;

const weather = fixtureCommand("weather-server.mjs");
const discoverLine = `pmcp schema discover --stdio '${process.execPath} ${FIXTURES}weather-server.mjs' --id weather --observations observations/`;

async function cli(...args: string[]) {
  const result = await runCli(args, { cwd: dir });
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/**
 * As `cli`, run in this process: for the reports and generations whose claim is what they print and
 * write, not the process (each command has its real run above them). Every path it is given is absolute.
 */
async function inProcess(...args: string[]) {
  const result = await runInProcess(args);
  expect(result.code, result.stderr).toBe(0);
  return result;
}

/** Calls the read-only tools (get_weather with `cities` arguments) and set_units, then infers from every log so far. */
async function learn(name: string, cities: number, extra: Record<string, unknown[]> = {}) {
  const samples = join(dir, `${name}.json`);
  const calls = { get_weather: Array.from({ length: cities }, (_, index) => ({ city: `c${index}` })), ...extra };
  await writeFile(samples, JSON.stringify(calls));
  const allow = Object.hasOwn(extra, "set_units") ? ["--allow-tool", "weather/set_units"] : [];
  await cli("schema", "discover", "--quiet", "--stdio", weather, "--id", "weather", "--samples", samples, "--observations", logs, ...allow);
  await inProcess("schema", "infer", "--quiet", "--schema", bundle, "--observations", logs);
}

const summary = (sources: string, qualities: string) => [
  "Schema quality:",
  `  weather: 6 tools, by source: ${sources}; by quality: ${qualities}`,
  `  total: 6 tools, by source: ${sources}; by quality: ${qualities}`,
];

beforeAll(async () => {
  dir = await outputDir("quality-history");
  bundle = join(dir, "bundle.json");
  out = join(dir, "clients");
  logs = join(dir, "logs");
  await cli("schema", "export", "--quiet", "--stdio", weather, "--id", "weather", "-o", bundle);
});

describe("generate records the quality it generated at, and report reads the history", () => {
  it("across two generations: the summary, the changes, the record, and the report in each format", async () => {
    // The first generation has no earlier record to compare with: no changes, and none recorded.
    const first = await cli("generate", "--schema", bundle, "-o", out);
    expect(first.stdout.split("\n")).toEqual([
      `Generated clients in ${out}: 1 server, 6 tools`,
      ...summary("declared 1 (16.7%), unknown 5 (83.3%)", "high 1 (16.7%), none 5 (83.3%)"),
      "",
    ]);
    const before = await cli("report", "--schema", bundle, "-o", out);
    expect(before.stdout.slice(before.stdout.indexOf("\nRecent improvements"))).toBe(
      [
        "",
        "Recent improvements (newest first): none",
        "",
        "Recommendations:",
        "  Safe to discover (unknown; read-only, no required arguments): weather/list_stations",
        `    ${discoverLine}`,
        "",
        "Most used tools (observed results): none observed",
        "",
      ].join("\n"),
    );
    const beforeJson = JSON.parse((await inProcess("report", "--schema", bundle, "-o", out, "--json")).stdout);
    expect([beforeJson.recentImprovements, beforeJson.recommendations, beforeJson.mostUsed]).toEqual([
      [],
      { discover: [{ server: "weather", tools: ["list_stations"], command: discoverLine }], drift: [], noJson: [], moreObservations: [] },
      [],
    ]);

    await learn("round-1", 3, { set_units: [{ units: "metric" }] });
    const second = await inProcess("generate", "--schema", bundle, "-o", out);
    expect(second.stdout.split("\n")).toEqual([
      `Generated clients in ${out}: 1 server, 6 tools`,
      ...summary("hybrid 1 (16.7%), inferred 2 (33.3%), unknown 3 (50.0%)", "high 1 (16.7%), low 2 (33.3%), none 3 (50.0%)"),
      "Changes since the previous generation:",
      "  weather/get_weather: none → low (3 observations)",
      "  weather/list_stations: none → low (1 observation)",
      "",
    ]);

    await learn("round-2", 12);
    const third = await inProcess("generate", "--schema", bundle, "-o", out, "--json");
    const counts = {
      tools: 6,
      bySource: { declared: 0, annotated: 0, hybrid: 1, inferred: 2, unknown: 3 },
      byQuality: { none: 3, low: 1, medium: 1, high: 1 },
      percentBySource: { declared: 0, annotated: 0, hybrid: 16.7, inferred: 33.3, unknown: 50 },
      percentByQuality: { none: 50, low: 16.7, medium: 16.7, high: 16.7 },
      observations: 19,
    };
    const index = join(out, "index.ts");
    expect(JSON.parse(third.stdout)).toEqual({
      lang: "typescript",
      output: out,
      servers: 1,
      tools: 6,
      reused: [],
      warnings: 0,
      changed: [join(out, "weather.ts"), index],
      typesChanged: ["weather/get_weather"],
      removed: [],
      quality: { servers: [{ id: "weather", ...counts }], total: counts },
      qualityChanges: [
        {
          kind: "improved",
          server: "weather",
          tool: "get_weather",
          observations: 15,
          from: { source: "inferred", quality: "low" },
          to: { source: "inferred", quality: "medium" },
        },
      ],
    });

    // The same bundle over the same index: nothing to write, nothing changed, the same summary.
    const written = await readFile(index, "utf8");
    const again = await inProcess("generate", "--schema", bundle, "-o", out);
    expect(again.stdout.split("\n")).toEqual([
      `Generated clients in ${out}: 1 server, 1 unchanged, 6 tools`,
      ...summary(
        "hybrid 1 (16.7%), inferred 2 (33.3%), unknown 3 (50.0%)",
        "high 1 (16.7%), medium 1 (16.7%), low 1 (16.7%), none 3 (50.0%)",
      ),
      "",
    ]);
    expect(JSON.parse((await inProcess("generate", "--schema", bundle, "-o", out, "--json")).stdout)).toMatchObject({
      changed: [],
      quality: { total: counts },
      qualityChanges: [],
    });
    // --check renders every file afresh (no cache, no shortcut): the same bytes.
    expect((await cli("generate", "--schema", bundle, "-o", out, "--check")).stdout).toBe(`${out} is up to date\n`);
    expect(await readFile(index, "utf8")).toBe(written);

    const table = await inProcess("report", "--schema", bundle, "-o", out);
    expect(table.stdout).toBe(
      [
        "server   tools  declared  annotated  hybrid  inferred  unknown  no JSON  q:high  q:medium  q:low  q:none  observations  list bytes  ≈ tokens",
        "weather      6         0          0       1         2        3        1       1         1      1       3            19        1160       290",
        "total        6         0          0       1         2        3        1       1         1      1       3            19        1160       290",
        "total %             0.0%       0.0%   16.7%     33.3%    50.0%            16.7%     16.7%  16.7%   50.0%",
        "",
        "Unknown because they answer without JSON (results holding each content type; no schema to learn):",
        "  weather/set_units: text in 1",
        "",
        "Drift (observed results that break the declared output schema):",
        "  weather/get_version at /build: must be string (1 of 2 observations)",
        "",
        "Recent improvements (newest first):",
        "  weather/get_weather: low → medium (15 observations)",
        "  weather/list_stations: none → low (1 observation)",
        "  weather/get_weather: none → low (3 observations)",
        "",
        "Recommendations:",
        "  Fix the drift (results break the declared output schema): weather/get_version",
        "  Declare an output schema on the server (they answer without JSON): weather/set_units",
        "  Observe more (quality low: under 10 consistent observations): weather/list_stations",
        "",
        "Most used tools (observed results):",
        "  1. weather/get_weather: 15",
        "  2. weather/get_version: 2",
        "  3. weather/list_stations: 2",
        "  4. weather/set_units: 1",
        "",
      ].join("\n"),
    );

    const markdown = await inProcess("report", "--schema", bundle, "-o", out, "--format", "markdown");
    expect(markdown.stdout.slice(markdown.stdout.indexOf("## Recent improvements"))).toBe(
      [
        "## Recent improvements (newest first)",
        "",
        "- weather/get\\_weather: low → medium (15 observations)",
        "- weather/list\\_stations: none → low (1 observation)",
        "- weather/get\\_weather: none → low (3 observations)",
        "",
        "## Recommendations",
        "",
        "- Fix the drift (results break the declared output schema): weather/get\\_version",
        "- Declare an output schema on the server (they answer without JSON): weather/set\\_units",
        "- Observe more (quality low: under 10 consistent observations): weather/list\\_stations",
        "",
        "## Most used tools (observed results)",
        "",
        "1. weather/get\\_weather: 15",
        "2. weather/get\\_version: 2",
        "3. weather/list\\_stations: 2",
        "4. weather/set\\_units: 1",
        "",
      ].join("\n"),
    );
    expect(markdown.stdout).toContain("| total % |  | 0.0% | 0.0% | 16.7% | 33.3% | 50.0% |  | 16.7% | 16.7% | 16.7% | 50.0% |  |  |  |\n");

    const json = JSON.parse((await inProcess("report", "--schema", bundle, "-o", out, "--json")).stdout);
    const improved = (tool: string, observations: number, from: string, to: string) => ({
      kind: "improved",
      server: "weather",
      tool,
      from: { source: from === "none" ? "unknown" : "inferred", quality: from },
      to: { source: "inferred", quality: to },
      observations,
    });
    expect(json.recentImprovements).toEqual([
      improved("get_weather", 15, "low", "medium"),
      improved("list_stations", 1, "none", "low"),
      improved("get_weather", 3, "none", "low"),
    ]);
    expect(json.recommendations).toEqual({
      discover: [],
      drift: [{ server: "weather", tool: "get_version" }],
      noJson: [{ server: "weather", tool: "set_units" }],
      moreObservations: [{ server: "weather", tool: "list_stations", observations: 2 }],
    });
    expect(json.mostUsed).toEqual([
      { server: "weather", tool: "get_weather", calls: 15 },
      { server: "weather", tool: "get_version", calls: 2 },
      { server: "weather", tool: "list_stations", calls: 2 },
      { server: "weather", tool: "set_units", calls: 1 },
    ]);
    expect(json.total).toEqual({ ...counts, noJson: 1, byContent: { text: 1 }, listBytes: 1160, listTokens: 290 });
  });

  it("report without generated clients says no history is recorded", async () => {
    const result = await inProcess("report", "--schema", bundle, "-o", join(dir, "no-clients-here"), "--json");
    const report = JSON.parse(result.stdout);
    expect(report.recentImprovements).toBeNull();
    const text = await inProcess("report", "--schema", bundle, "-o", join(dir, "no-clients-here"));
    expect(text.stdout).toContain(
      "\nRecent improvements (newest first): none recorded (no index.ts generated with a record in the output folder, -o)\n",
    );
  });

  it("prints a server's control characters escaped in the table and in Markdown, and keeps Markdown's syntax out of names", async () => {
    const hostile = "get\u001b[31m\u001b]0;title\u0007\r*stock*";
    const seen = {
      tool: hostile,
      schema: {},
      observations: 0,
      seen: 3,
      firstSeen: "2025-01-01T00:00:00.000Z",
      lastSeen: "2025-01-01T00:00:00.000Z",
      redacted: false,
      consistency: 0,
      quality: "none",
      fields: [],
      content: { text: 3 },
    };
    const path = join(dir, "hostile.json");
    await writeFile(path, JSON.stringify({ version: "1.0", servers: [{ id: "shop", tools: [{ name: hostile }], inferred: [seen] }] }));
    const table = await inProcess("report", "--schema", path, "-o", out);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that none of these reaches the terminal
    expect(table.stdout).not.toMatch(/[\u001b\u0007\r]/);
    // A name holding control characters is quoted as JSON, so it stays on its line and shows what it holds.
    expect(table.stdout).toContain('\n  1. "shop/get\\u001b[31m\\u001b]0;title\\u0007\\r*stock*": 3\n');
    const markdown = await inProcess("report", "--schema", path, "-o", out, "--format", "markdown");
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is that none of these reaches the terminal
    expect(markdown.stdout).not.toMatch(/[\u001b\u0007\r]/);
    expect(markdown.stdout).toContain('\n1. "shop/get\\\\u001b\\[31m\\\\u001b\\]0;title\\\\u0007\\\\r\\*stock\\*": 3\n');
  });

  it("prints at most 20 changes, and says how many more --json lists", async () => {
    const path = join(dir, "wide.json");
    const clients = join(dir, "wide-clients");
    const tools = (count: number) => Array.from({ length: count }, (_, index) => ({ name: `t${String(index).padStart(2, "0")}` }));
    await writeFile(path, JSON.stringify({ version: "1.0", servers: [{ id: "wide", tools: tools(1) }] }));
    await inProcess("generate", "--schema", path, "-o", clients);
    await writeFile(path, JSON.stringify({ version: "1.0", servers: [{ id: "wide", tools: tools(26) }] }));
    const result = await inProcess("generate", "--schema", path, "-o", clients);
    expect(result.stdout.split("\n").slice(4)).toEqual([
      "Changes since the previous generation:",
      ...tools(26)
        .slice(1, 21)
        .map((tool) => `  wide/${tool.name}: new, none`),
      "  and 5 more (--json lists them all)",
      "",
    ]);
  });
});
