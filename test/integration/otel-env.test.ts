import { writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureCommand, runCli } from "../helpers/cli.js";
import { outputDir } from "../helpers/typescript.js";

interface OtlpSpan {
  name: string;
  attributes: { key: string; value: { stringValue?: string } }[];
}

/** An OTLP/HTTP JSON collector on 127.0.0.1: it keeps every span posted to /v1/traces. */
let collector: Server;
const spans: OtlpSpan[] = [];
let endpoint: string;
let dir: string;

beforeAll(async () => {
  dir = await outputDir("otel-env");
  collector = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    if (req.url === "/v1/traces") {
      const batch = JSON.parse(body) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const resource of batch.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
    }
    res.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  await new Promise<void>((resolve) => collector.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(collector.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => collector.close(() => resolve())));

describe("the CLI exports spans when the standard OTEL_* variables ask for it", () => {
  it("pmcp exec sends its program's and its tool calls' spans to the OTLP endpoint", async () => {
    const program = join(dir, "count.ts");
    await writeFile(program, "return (await inv.count()) + 1;\n");
    const env = {
      OTEL_TRACES_EXPORTER: "otlp",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      OTEL_METRICS_EXPORTER: "none",
      OTEL_LOGS_EXPORTER: "none",
    };
    const result = await runCli(["exec", program, "--stdio", fixtureCommand("v2-server.mjs", "modern"), "--id", "inv"], { env });
    expect([result.code, result.stdout.trim()], result.stderr).toEqual([0, "8"]);
    const call = spans.find((span) => span.name === "tools/call count");
    const version = call?.attributes.find((attribute) => attribute.key === "mcp.protocol.version")?.value.stringValue;
    expect([call?.name, version]).toEqual(["tools/call count", "2026-07-28"]);
    expect(spans.map((span) => span.name)).toContain("execute_program");
  });

  it("serve exec on stdio refuses the console exporter, which would write into the protocol stream", async () => {
    const result = await runCli(["serve", "exec", "--stdio", fixtureCommand("v2-server.mjs", "modern"), "--id", "inv"], {
      env: { OTEL_TRACES_EXPORTER: "console" },
    });
    expect([result.code, result.stderr.split("\n")[0]]).toEqual([
      2,
      "pmcp: OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER console would write into stdout, which carries the MCP protocol here: use otlp, or serve over --http",
    ]);
  });
});
