import { PmcpError } from "../../errors.js";

/** The variables that ask for telemetry to be exported; without one, nothing is started. */
const ASKING = ["OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"];

/**
 * Starts the OpenTelemetry Node SDK for a long-running command when the standard `OTEL_*`
 * variables ask for an exporter (`OTEL_TRACES_EXPORTER=otlp`, `OTEL_EXPORTER_OTLP_ENDPOINT`, …;
 * `OTEL_SDK_DISABLED=true` wins), so `serve exec`, `exec` and `dev` report their spans and metrics
 * without a hand-written `--import`. Resolves with the function that flushes and stops it.
 * `stdoutCarriesProtocol`: the console exporter would write into the MCP stream, so it is refused.
 */
export async function startTelemetry(options: { stdoutCarriesProtocol: boolean }): Promise<() => Promise<void>> {
  const env = process.env;
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === "true" || !ASKING.some((name) => (env[name] ?? "") !== "")) return async () => {};
  const exporters = `${env.OTEL_TRACES_EXPORTER ?? ""},${env.OTEL_METRICS_EXPORTER ?? ""}`.split(",").map((name) => name.trim());
  if (options.stdoutCarriesProtocol && exporters.includes("console"))
    throw new PmcpError(
      "INVALID_ARGUMENT",
      "OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER console would write into stdout, which carries the MCP protocol here: use otlp, or serve over --http",
    );
  const { NodeSDK } = await import("@opentelemetry/sdk-node");
  const sdk = new NodeSDK();
  sdk.start();
  return () => sdk.shutdown().catch(() => {});
}
