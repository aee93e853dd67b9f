import { join } from "node:path";
import { trace } from "@opentelemetry/api";
import { CompositionClient } from "@pmcp-codegen/runtime";
import { afterAll, expect, it } from "vitest";
import { FIXTURES } from "../helpers/cli.js";

// No OpenTelemetry SDK is registered in this file (each test file runs in its own worker).
const client = new CompositionClient({ servers: { echo: { command: process.execPath, args: [join(FIXTURES, "otel-echo.mjs")] } } });

afterAll(() => client.close());

it("with no SDK registered, the tools/call params are exactly what they were: no _meta is added", async () => {
  expect(trace.getTracer("pmcp-codegen").startSpan("probe").isRecording()).toBe(false);
  const result = await client.callToolForResult({ server: "echo", tool: "echo", args: { sku: "A1", _meta: "an argument" } });
  expect(result.text).toBe('{"name":"echo","arguments":{"sku":"A1","_meta":"an argument"}}');
});
