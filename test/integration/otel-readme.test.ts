import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompositionClient } from "@pmcp-codegen/runtime";
import { afterAll, expect, it } from "vitest";
import { z } from "zod";
import { FIXTURES, ROOT } from "../helpers/cli.js";

const children: ChildProcessWithoutNullStreams[] = [];
let scratch: string | undefined;

afterAll(async () => {
  for (const child of children) child.kill();
  if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
});

/** Starts a Node script that prints its URL as its first line; returns the URL and all it printed so far. */
async function start(script: string, env: Record<string, string>): Promise<{ url: string; output: () => string }> {
  const child = spawn(process.execPath, [script], { env: { ...process.env, ...env } });
  children.push(child);
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk.toString("utf8");
  });
  while (!output.includes("\n")) await once(child.stdout, "data");
  return { url: output.split("\n")[0] ?? "", output: () => output };
}

it("the OpenTelemetry guide's example runs: a domain server printing its spans, continued by the upstream server", async () => {
  const guide = await readFile(join(ROOT, "docs/guides/opentelemetry.md"), "utf8");
  const example = /<!-- otel-example -->\n```js\n([\s\S]*?)```/.exec(guide)?.[1];
  expect(example).toBeDefined();
  // Inside the repository, so that `pmcp-codegen/server` resolves to this package as it would when installed.
  const dir = join(ROOT, "test/.output/otel-readme");
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "server.mjs"), example ?? "");
  scratch = await mkdtemp(join(tmpdir(), "pmcp-otel-readme-"));
  const upstreamSpans = join(scratch, "upstream.jsonl");

  const upstream = await start(join(FIXTURES, "otel-server.mjs"), { OTEL_TRANSPORT: "http", OTEL_SPANS_FILE: upstreamSpans });
  const domain = await start(join(dir, "server.mjs"), { INVENTORY_URL: upstream.url, PORT: "0" });
  const agent = new CompositionClient({ servers: { domain: { url: domain.url } } });
  try {
    const value = await agent.callTool({
      server: "domain",
      tool: "stock_report",
      args: { sku: "A1" },
      parse: z.object({ line: z.string() }),
    });
    expect(value).toEqual({ line: "A1: 7 in stock" });
  } finally {
    await agent.close();
  }

  // ConsoleSpanExporter prints each span as an object literal; the server span ends before its answer is sent.
  const printed = domain.output();
  const spans = [...printed.matchAll(/traceId: '([0-9a-f]{32})',[\s\S]*?name: '([^']+)',[\s\S]*?kind: (\d)/g)].map((match) => ({
    traceId: match[1],
    name: match[2],
    kind: Number(match[3]),
  }));
  expect(spans.map((span) => [span.name, span.kind])).toEqual([
    ["tools/call get_stock", 2],
    ["tools/call stock_report", 1],
  ]);
  const served = JSON.parse((await readFile(upstreamSpans, "utf8")).trim()) as { name: string; traceId: string };
  expect([served.name, spans[0]?.traceId, spans[1]?.traceId]).toEqual(["tools/call get_stock", served.traceId, served.traceId]);
});
