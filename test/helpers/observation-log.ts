import { formatObservationLog } from "@pmcp-codegen/runtime/internal";

/** The text of an observation log of `server`/`tool` holding `values` as its results, all seen at one moment. */
export function observationLogText(server: string, tool: string, values: readonly unknown[]): string {
  const at = "2026-01-01T00:00:00.000Z";
  const header = {
    format: "pmcp-observations/1" as const,
    server,
    tool,
    seen: values.length,
    firstSeen: at,
    lastSeen: at,
    redacted: false,
  };
  return formatObservationLog({ header, samples: values.map((value) => ({ at, value })) });
}
