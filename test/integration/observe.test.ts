import { execFile } from "node:child_process";
import { readdir, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { CompositionClient, ObservationRecorder, OutputValidationError, observationPath, parseObservationLog } from "@pmcp-codegen/runtime";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { qualityOf, schemaSourceOf } from "../../src/bundle/quality.js";
import type { Bundle, InferredTool } from "../../src/bundle/types.js";
import { readSchemaFiles } from "../../src/bundle-files/read.js";
import { inferBundle } from "../../src/learn/observation-logs.js";
import { FIXTURES, fixtureCommand, ROOT, runCli, runInProcess } from "../helpers/cli.js";
import { COMPILE_BUDGET_MS, outputDir } from "../helpers/typescript.js";

const require = createRequire(import.meta.url);
const memoryMain = join(require.resolve("@modelcontextprotocol/server-memory/package.json"), "..", "dist/index.js");

let dir: string;
let bundle: Bundle;

beforeAll(async () => {
  dir = await outputDir("observe");
  const path = join(dir, "bundle.json");
  await writeFile(
    join(dir, "mcp.json"),
    JSON.stringify({
      mcpServers: {
        weather: { command: process.execPath, args: [join(FIXTURES, "weather-server.mjs")] },
        memory: { command: process.execPath, args: [memoryMain], env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
      },
    }),
  );
  const result = await runCli(["schema", "export", "--quiet", "-o", path, "--config", join(dir, "mcp.json")]);
  expect(result.code, result.stderr).toBe(0);
  bundle = (await readSchemaFiles([path])).bundle;
});

function client(observations: string, maxSamples?: number): CompositionClient {
  return new CompositionClient({
    servers: {
      weather: { command: process.execPath, args: [join(FIXTURES, "weather-server.mjs")] },
      memory: { command: process.execPath, args: [memoryMain], env: { MEMORY_FILE_PATH: join(dir, `memory-${Date.now()}.jsonl`) } },
    },
    observe: { dir: observations, ...(maxSamples === undefined ? {} : { maxSamples }) },
    timeoutMs: 20_000,
  });
}

const any = z.unknown();

function block(result: Bundle, server: string, tool: string): InferredTool | undefined {
  return result.servers.find((candidate) => candidate.id === server)?.inferred?.find((candidate) => candidate.tool === tool);
}

describe("observation logs", () => {
  it("several processes recording the same tool at once lose none of each other's samples", async () => {
    const logs = join(dir, "concurrent");
    // Each writer yields between records, so its drains interleave with the other processes' drains.
    const writer = `
      import { ObservationRecorder } from ${JSON.stringify(pathToFileURL(join(ROOT, "packages/runtime/dist/index.js")).href)};
      const recorder = new ObservationRecorder({ dir: process.argv[1], maxSamples: 1000, onError: (error) => { console.error(error.message); process.exitCode = 1; } });
      for (let index = 0; index < 150; index++) {
        recorder.record("s", "t", { writer: process.argv[2], index });
        await new Promise((resolve) => setTimeout(resolve, index % 3));
      }
      await recorder.flush();`;
    const results = await Promise.all(
      ["a", "b", "c", "d"].map(
        (name) =>
          new Promise<{ code: number | null; stderr: string }>((resolve) => {
            execFile(process.execPath, ["--input-type=module", "-e", writer, logs, name], (error, _stdout, stderr) =>
              resolve({ code: error === null ? 0 : (error.code as number), stderr }),
            );
          }),
      ),
    );
    expect(results).toEqual(Array.from({ length: 4 }, () => ({ code: 0, stderr: "" })));
    const log = parseObservationLog(await readFile(observationPath(logs, "s", "t"), "utf8"), "t.jsonl");
    expect(log.header.seen).toBe(600);
    const kept = log.samples.map((sample) => {
      const value = ("value" in sample ? sample.value : {}) as { writer: string; index: number };
      return `${value.writer}${value.index}`;
    });
    expect(new Set(kept).size).toBe(600);
    expect((await readdir(join(logs, "s"))).sort()).toEqual(["t.jsonl"]);
  });

  it("are written by CompositionClient for every successful call, results unwrapped, failures not recorded", async () => {
    const logs = join(dir, "client");
    const upstream = client(logs);
    try {
      for (const city of ["Oslo", "Rome", "Lima"])
        await upstream.callTool({ server: "weather", tool: "get_weather", args: { city }, parse: any });
      await expect(upstream.callTool({ server: "weather", tool: "get_weather", args: { city: "" }, parse: any })).rejects.toThrow(
        "city is required",
      );
    } finally {
      await upstream.close();
    }
    const log = parseObservationLog(await readFile(observationPath(logs, "weather", "get_weather"), "utf8"), "log");
    expect(log.header).toMatchObject({ server: "weather", tool: "get_weather", seen: 3, redacted: false });
    expect(log.samples.map((sample) => ("value" in sample ? (sample.value as { city: string }).city : ""))).toEqual([
      "Oslo",
      "Rome",
      "Lima",
    ]);
  });
});

describe("inference", () => {
  it("grades quality at 1, 10 and 100 consistent observations, from real calls", async () => {
    const logs = join(dir, "quality");
    const upstream = client(logs);
    const grades: string[] = [];
    try {
      let made = 0;
      for (const target of [1, 9, 10, 99, 100]) {
        for (; made < target; made++) await upstream.callTool({ server: "weather", tool: "list_stations", parse: any });
        await upstream.flushObservations();
        grades.push(block((await inferBundle(bundle, logs)).bundle, "weather", "list_stations")?.quality ?? "missing");
      }
    } finally {
      await upstream.close();
    }
    expect(grades).toEqual(["low", "low", "medium", "medium", "high"]);
    expect([0, 1, 9, 10, 99, 100].map(qualityOf)).toEqual(["none", "low", "low", "medium", "medium", "high"]);
  });

  it("records the source of every tool: inferred, hybrid with drift for a server breaking its schema, unknown", async () => {
    const logs = join(dir, "sources");
    const upstream = client(logs);
    try {
      for (const city of ["Oslo", "Rome", "Lima", "Bern"])
        await upstream.callTool({ server: "weather", tool: "get_weather", args: { city }, parse: any });
      for (let index = 0; index < 4; index++) await upstream.callTool({ server: "weather", tool: "get_version", parse: any });
      await upstream.callTool({
        server: "memory",
        tool: "create_entities",
        args: { entities: [{ name: "Ada", entityType: "person", observations: ["wrote notes"] }] },
        parse: any,
      });
      await upstream.callTool({ server: "memory", tool: "read_graph", parse: any });
      await upstream.callTool({ server: "memory", tool: "search_nodes", args: { query: "Ada" }, parse: any });
    } finally {
      await upstream.close();
    }
    const { bundle: result, inferred } = await inferBundle(bundle, logs);
    expect(inferred.map((item) => item.tool).sort()).toEqual([
      "create_entities",
      "get_version",
      "get_weather",
      "read_graph",
      "search_nodes",
    ]);
    const source = (server: string, tool: string) => {
      const found = result.servers.find((candidate) => candidate.id === server)!;
      return schemaSourceOf(found.tools.find((candidate) => candidate.name === tool)!, block(result, server, tool));
    };
    expect(source("weather", "get_weather")).toEqual({ source: "inferred", quality: "low" });
    expect(source("weather", "get_version")).toEqual({ source: "hybrid", quality: "high" });
    expect(source("memory", "read_graph")).toEqual({ source: "hybrid", quality: "high" });
    expect(source("memory", "open_nodes")).toEqual({ source: "declared", quality: "high" });
    expect(source("weather", "delete_station")).toEqual({ source: "unknown", quality: "none" });
    expect(block(result, "weather", "get_version")?.drift).toEqual([{ path: "/build", message: "must be string", count: 2 }]);
    // The memory server keeps its promises: observations, no drift.
    expect(block(result, "memory", "read_graph")?.drift).toBeUndefined();
    // The tool objects themselves are untouched.
    expect(result.servers.map((server) => server.tools)).toEqual(bundle.servers.map((server) => server.tools));
  });

  it("names a log that is not one, with the file and line, learning the others; warns about logs of unknown tools", async () => {
    const logs = join(dir, "bad-logs");
    const recorder = new ObservationRecorder({ dir: logs });
    recorder.record("weather", "no_such_tool", { a: 1 });
    await recorder.flush();
    expect((await inferBundle(bundle, logs)).warnings).toEqual([
      'observations of "weather/no_such_tool" match no tool in the bundle; ignored',
    ]);
    await writeFile(join(logs, "weather", "broken.jsonl"), '{"format":"pmcp-observations/1"}\n');
    const broken = await inferBundle(bundle, logs);
    expect(broken.failed).toEqual([expect.stringMatching(/broken\.jsonl:1: not an observation log header.*; not learned from$/s)]);
  });
});

describe("lenient parsing of inferred results", () => {
  it("passes a mismatching value on, and reports it once per tool", async () => {
    const mismatches: OutputValidationError[] = [];
    const upstream = new CompositionClient({
      servers: { weather: { command: process.execPath, args: [join(FIXTURES, "weather-server.mjs")] } },
      onInferredMismatch: (error) => mismatches.push(error),
    });
    try {
      const parse = z.object({ stations: z.array(z.object({ id: z.number() })) });
      const value = await upstream.callTool({ server: "weather", tool: "list_stations", parse, lenient: true });
      expect(value.stations[0]?.id).toBe("s1");
      expect(mismatches[0]).toBeInstanceOf(OutputValidationError);
      await expect(upstream.callTool({ server: "weather", tool: "list_stations", parse })).rejects.toBeInstanceOf(OutputValidationError);
    } finally {
      await upstream.close();
    }
  });
});

describe("pmcp schema discover", () => {
  it("reconnects after a tool stops the server, so later tools are still called, and exits 1", async () => {
    const logs = join(dir, "discover-crash");
    const result = await runCli(
      [
        "schema",
        "discover",
        "--stdio",
        fixtureCommand("behaviour-server.mjs"),
        "--id",
        "behave",
        "--observations",
        logs,
        "--allow-tool",
        "extra_fields",
      ],
      { env: { CRASH_MARKER: join(dir, "crash-marker") } },
    );
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("pmcp: 1 call failed: behave/flaky_read\n");
    // The tool listed after the crash was called on a new server process and recorded.
    expect(result.stdout.split("\n").filter((line) => line.startsWith("called"))).toEqual([
      "called behave/pid: 1 call, 1 recorded",
      "called behave/flaky_read: 1 call, 0 recorded, 1 failed (the server closed the connection)",
      "called behave/extra_fields: 1 call, 1 recorded",
    ]);
  });

  it("calls only read-only or allowed tools, never a destructive one, and says what it skipped and why", async () => {
    const logs = join(dir, "discover");
    const calls = join(dir, "calls.jsonl");
    const samples = join(dir, "samples.json");
    await writeFile(
      samples,
      JSON.stringify({ get_weather: [{ city: "Oslo" }, { city: "Rome" }, { city: "" }], "weather/set_units": [{ units: "metric" }] }),
    );
    const result = await runCli(
      [
        "schema",
        "discover",
        "--stdio",
        fixtureCommand("weather-server.mjs"),
        "--id",
        "weather",
        "--samples",
        samples,
        "--observations",
        logs,
        "--allow-tool",
        "weather/set_units",
        "--allow-tool",
        "delete_station",
        "--allow-tool",
        "weather/reset_all",
      ],
      { env: { CALLS_FILE: calls } },
    );
    // A failed call fails the run, after everything else was recorded and reported.
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("pmcp: 1 call failed: weather/get_weather\n");
    expect(result.stdout.split("\n")).toEqual([
      "called weather/get_weather: 3 calls, 2 recorded, 1 failed (city is required)",
      "called weather/list_stations: 1 call, 1 recorded",
      "called weather/get_version: 1 call, 1 recorded",
      "called weather/set_units: 1 call, 1 recorded (1 without JSON)",
      "skipped weather/delete_station: annotated destructive (destructiveHint: true): never called",
      "skipped weather/reset_all: annotated destructive (destructiveHint: true): never called",
      `Recorded 5 observations in ${logs}`,
      "",
    ]);
    // The fixture logs every call of a tool that is not read-only: only the allowed, non-destructive one.
    expect(
      (await readFile(calls, "utf8"))
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line).name),
    ).toEqual(["set_units"]);
    expect((await readdir(join(logs, "weather"))).sort()).toEqual([
      "get_version.jsonl",
      "get_weather.jsonl",
      "list_stations.jsonl",
      "set_units.jsonl",
    ]);
    // Its prose answer is logged as what it is, not as a value.
    const units = parseObservationLog(await readFile(observationPath(logs, "weather", "set_units"), "utf8"), "log");
    expect(units.samples.map((sample) => ("content" in sample ? sample.content : sample.value))).toEqual([["text"]]);
  });

  it("without --allow-tool or samples skips what is not read-only and what needs arguments", async () => {
    const calls = join(dir, "calls-none.jsonl");
    const result = await runCli(
      [
        "schema",
        "discover",
        "--stdio",
        fixtureCommand("weather-server.mjs"),
        "--id",
        "weather",
        "--observations",
        join(dir, "discover-bare"),
      ],
      { env: { CALLS_FILE: calls } },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('skipped weather/get_weather: needs arguments: add "weather/get_weather": [{...}] to the samples file');
    expect(result.stdout).toContain(
      "skipped weather/set_units: not annotated read-only: name it with --allow-tool weather/set_units to call it",
    );
    expect(result.stdout).toContain("called weather/list_stations: 1 call, 1 recorded");
    await expect(readFile(calls, "utf8")).rejects.toThrow();
  });

  it("names each malformed tool it skips and goes on with the rest", async () => {
    const result = await runCli([
      "schema",
      "discover",
      "--stdio",
      fixtureCommand("listing-server.mjs", "invalid-tool"),
      "--id",
      "listing",
      "--observations",
      join(dir, "discover-invalid"),
    ]);
    // The fixture has no tools/call handler: the valid tool's one call fails, and so does the run.
    expect(result.code).toBe(1);
    expect(result.stderr).toBe("pmcp: 1 call failed: listing/ping\n");
    const lines = result.stdout.split("\n");
    expect(lines).toContainEqual(expect.stringMatching(/^skipped listing\/bad_schema: invalid tool definition \(inputSchema: /));
    expect(lines).toContainEqual(expect.stringMatching(/^skipped listing\/tools\[2\]: invalid tool definition \(name: /));
    // The valid tool is still tried.
    expect(lines).toContainEqual(expect.stringMatching(/^called listing\/ping: 1 call, 0 recorded, 1 failed/));
  });

  it("reports a bad samples file and a missing --observations as usage errors", async () => {
    const samples = join(dir, "bad-samples.json");
    await writeFile(samples, JSON.stringify({ get_weather: { city: "Oslo" } }));
    // Usage errors, in this process; the run below is a real one.
    const bad = await runInProcess([
      "schema",
      "discover",
      "--stdio",
      fixtureCommand("weather-server.mjs"),
      "--samples",
      samples,
      "--observations",
      join(dir, "x"),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split("\n")[0]).toMatch(/^pmcp: --samples .*bad-samples\.json at get_weather.*: .*expected/);
    const missing = await runInProcess(["schema", "discover", "--stdio", fixtureCommand("weather-server.mjs")]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("observations");
    const absent = await runInProcess([
      "schema",
      "discover",
      "--stdio",
      fixtureCommand("weather-server.mjs"),
      "--samples",
      join(dir, "absent.json"),
      "--observations",
      join(dir, "x"),
    ]);
    expect(absent.code).toBe(2);
    expect(absent.stderr.split("\n")[0]).toMatch(/^pmcp: cannot read --samples .*absent\.json: ENOENT \(no such file\)$/);
    const unreachable = await runCli(["schema", "discover", "--stdio", "no-such-server-binary", "--observations", join(dir, "x")]);
    expect(unreachable.code).toBe(1);
    expect(unreachable.stderr).toBe('pmcp: server "no-such-server-binary": cannot start "no-such-server-binary": command not found\n');
  });
});

describe("infer, generate and report from the command line", () => {
  it(
    "generates lenient typed clients from inferred schemas that compile, run, and change with more observations",
    async () => {
      const work = join(dir, "cli-flow");
      const path = join(work, "bundle.json");
      const logs = join(work, "observations");
      const samples = join(dir, "flow-samples.json");
      await writeFile(samples, JSON.stringify({ get_weather: Array.from({ length: 16 }, (_, index) => ({ city: `c${index}` })) }));
      const discover = (variant: string) =>
        runCli([
          "schema",
          "discover",
          "--quiet",
          "--stdio",
          fixtureCommand("weather-server.mjs", variant),
          "--id",
          "weather",
          "--samples",
          samples,
          "--observations",
          logs,
        ]);
      expect(
        (await runCli(["schema", "export", "--quiet", "--stdio", fixtureCommand("weather-server.mjs"), "--id", "weather", "-o", path]))
          .code,
      ).toBe(0);
      expect((await discover("v1")).code).toBe(0);
      // What infer and generate print and write, in this process; the exports and discoveries are real runs.
      const inferred = await runInProcess(["schema", "infer", "--schema", path, "--observations", logs]);
      expect(inferred.code, inferred.stderr).toBe(0);
      expect(inferred.stdout).toContain("inferred weather/get_weather: 16 observations, quality medium (consistency 0.75)");
      expect(inferred.stderr).toContain(
        'server "weather" tool "get_version" breaks its declared output schema at /build: must be string (1 of 1 observation)',
      );
      // Exporting again keeps what was learned; the export is then up to date.
      const exportAgain = ["schema", "export", "--quiet", "--stdio", fixtureCommand("weather-server.mjs"), "--id", "weather", "-o", path];
      expect((await runCli(exportAgain)).code).toBe(0);
      expect(JSON.parse(await readFile(path, "utf8")).servers[0].inferred.map((item: InferredTool) => item.tool)).toEqual([
        "get_version",
        "get_weather",
        "list_stations",
      ]);
      expect((await runCli([...exportAgain, "--check"])).code).toBe(0);

      const out = join(work, "generated");
      expect((await runInProcess(["generate", "--schema", path, "-o", out])).code).toBe(0);
      const module = await readFile(join(out, "weather.ts"), "utf8");
      expect(module).toContain("Result of the `get_weather` tool, inferred from 16 observations, quality medium.");
      expect(module).toMatch(/tool: "get_weather", args, parse: GetWeatherResultSchema, retryable: true, lenient: true/);
      // --min-quality high leaves the medium-quality inference out: the result is returned as it came again.
      const strict = join(work, "generated-high");
      expect((await runInProcess(["generate", "--schema", path, "-o", strict, "--min-quality", "high"])).code).toBe(0);
      expect(await readFile(join(strict, "weather.ts"), "utf8")).toContain("export type GetWeatherResult = rt.ToolResult;");

      const usage = join(work, "usage.ts");
      await writeFile(
        usage,
        [
          'import type { CompositionClient, ToolResult } from "@pmcp-codegen/runtime";',
          'import { WeatherClient } from "./generated/index.js";',
          "export async function use(client: CompositionClient): Promise<string> {",
          '  const result = await new WeatherClient(client).getWeather({ city: "Oslo" });',
          "  // The result as it came stays what an untyped tool returns; the inferred type is in .value.",
          "  const untyped: ToolResult = result;",
          "  const weather = result.value;",
          '  const city: string | undefined = untyped.text.length > 0 ? String(result.get("city")) : undefined;',
          "  const temperature: number | string = weather.temperature;",
          "  const speed: number | undefined = weather.wind?.speed;",
          "  // @ts-expect-error an inferred field that was not always present is optional",
          "  const direction: string = weather.wind.direction;",
          "  return `${city} ${weather.city} ${temperature} ${speed} ${direction} ${weather.readings.map((reading) => reading.note ?? reading.value).join()}`;",
          "}",
        ].join("\n"),
      );
      const { typecheck } = await import("../helpers/typescript.js");
      expect(await typecheck(work, [join(out, "index.ts"), usage], "nodenext")).toBe("");
      const generated = (await import(join(out, "index.ts"))) as {
        WeatherClient: new (client: CompositionClient) => { getWeather(args: { city: string }): Promise<{ value: { city: string } }> };
      };
      const upstream = new CompositionClient({
        servers: { weather: { command: process.execPath, args: [join(FIXTURES, "weather-server.mjs")] } },
      });
      try {
        expect((await new generated.WeatherClient(upstream).getWeather({ city: "Oslo" })).value.city).toBe("Oslo");
      } finally {
        await upstream.close();
      }

      // A release later the tool returns one more field: observe it, infer again, and --check names the tool.
      expect((await discover("v2")).code).toBe(0);
      expect((await runInProcess(["schema", "infer", "--quiet", "--schema", path, "--observations", logs])).code).toBe(0);
      const check = await runCli(["generate", "--schema", path, "-o", out, "--check"]);
      expect(check.code).toBe(1);
      expect(check.stdout).toContain(`stale: ${join(out, "weather.ts")} (types changed: get_weather)`);
    },
    COMPILE_BUDGET_MS,
  );

  it("pmcp report counts tools by source and quality, observations, drift and tools/list size", async () => {
    const logs = join(dir, "report-logs");
    const upstream = client(logs);
    try {
      for (let index = 0; index < 12; index++) await upstream.callTool({ server: "weather", tool: "list_stations", parse: any });
      for (let index = 0; index < 2; index++) await upstream.callTool({ server: "weather", tool: "get_version", parse: any });
      // A tool answering in prose: returned as it came, logged as text, never learned from.
      for (const units of ["metric", "imperial", "kelvin"]) {
        const result = await upstream.callToolForResult({ server: "weather", tool: "set_units", args: { units } });
        expect(result.text).toBe(`Units set to ${units}.`);
      }
    } finally {
      await upstream.close();
    }
    const log = parseObservationLog(await readFile(observationPath(logs, "weather", "set_units"), "utf8"), "log");
    expect(log.samples.map((sample) => ("content" in sample ? sample.content : sample.value))).toEqual([["text"], ["text"], ["text"]]);
    const inferred = await inferBundle(bundle, logs);
    expect(block(inferred.bundle, "weather", "set_units")).toMatchObject({
      schema: {},
      observations: 0,
      seen: 3,
      quality: "none",
      fields: [],
      content: { text: 3 },
    });
    expect(
      schemaSourceOf(
        bundle.servers.find((server) => server.id === "weather")!.tools.find((tool) => tool.name === "set_units")!,
        block(inferred.bundle, "weather", "set_units"),
      ).source,
    ).toBe("unknown");
    const path = join(dir, "report-bundle.json");
    const { writeFilesAtomically } = await import("@pmcp-codegen/runtime/internal/files");
    const { toJsonText } = await import("../../src/bundle/serialize.js");
    await writeFilesAtomically([{ path, content: toJsonText(inferred.bundle) }]);

    const json = await runCli(["report", "--schema", path, "--json"]);
    expect(json.code, json.stderr).toBe(0);
    const report = JSON.parse(json.stdout);
    const weather = report.servers.find((server: { id: string }) => server.id === "weather");
    expect(weather).toMatchObject({
      tools: 6,
      bySource: { declared: 0, annotated: 0, hybrid: 1, inferred: 1, unknown: 4 },
      byQuality: { high: 1, medium: 1, low: 0, none: 4 },
      observations: 14,
      noJson: 1,
      byContent: { text: 1 },
    });
    expect(report.noJson).toEqual([{ server: "weather", tool: "set_units", content: { text: 3 } }]);
    expect(report.total).toMatchObject({ noJson: 1, byContent: { text: 1 } });
    const listing = bundle.servers.find((server) => server.id === "weather")!.tools;
    expect(weather.listBytes).toBe(Buffer.byteLength(JSON.stringify({ tools: listing })));
    expect(weather.listTokens).toBe(Math.ceil(weather.listBytes / 4));
    expect(report.total.tools).toBe(bundle.servers.reduce((sum, server) => sum + server.tools.length, 0));
    expect(report.drift).toEqual([
      { server: "weather", tool: "get_version", path: "/build", message: "must be string", count: 1, observations: 2 },
    ]);

    // The same report as a table and as Markdown: the CLI's run in this process, as the JSON's was a real one.
    const table = await runInProcess(["report", "--schema", path]);
    expect(table.stdout.split("\n")[0]).toMatch(/^server\s+tools\s+declared\s+annotated\s+hybrid\s+inferred\s+unknown\s+no JSON\s+q:high/);
    expect(table.stdout).toMatch(/^weather\s+6\s+0\s+0\s+1\s+1\s+4\s+1\s+1\s+1\s+0\s+4\s+14\s/m);
    expect(table.stdout).toContain(
      "Unknown because they answer without JSON (results holding each content type; no schema to learn):\n  weather/set_units: text in 3\n",
    );
    expect(table.stdout).toContain("weather/get_version at /build: must be string (1 of 2 observations)");
    const markdown = await runInProcess(["report", "--schema", path, "--format", "markdown"]);
    expect(markdown.stdout).toContain("| server | tools | declared |");
    expect(markdown.stdout).toMatch(/^\| weather \| 6 \| 0 \| 0 \| 1 \| 1 \| 4 \| 1 \|/m);
    expect(markdown.stdout).toContain("- weather/set\\_units: text in 3");
  });

  it("pmcp schema infer fails with a usage error on a missing observations folder, leaving the bundle as it was", async () => {
    const path = join(dir, "untouched.json");
    const { toJsonText } = await import("../../src/bundle/serialize.js");
    await writeFile(path, toJsonText(bundle));
    const before = await readFile(path, "utf8");
    const result = await runInProcess(["schema", "infer", "--schema", path, "--observations", join(dir, "no-such-folder")]);
    // A missing input is a usage error, as a missing bundle is (docs/reference/exit-codes-and-errors.md).
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toEqual([
      expect.stringMatching(/^pmcp: .*no-such-folder: no such folder/),
      "pmcp: run 'pmcp --help' for usage",
    ]);
    expect(await readFile(path, "utf8")).toBe(before);
  });
});
