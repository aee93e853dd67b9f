import type { ObservationRecorder } from "@pmcp-codegen/runtime";
import { errorMessage, type ServerSource } from "@pmcp-codegen/runtime/internal";
import {
  CallResult,
  type Connection,
  type ConnectOptions,
  connect,
  observedResult,
  type StrayOutput,
  throwIfError,
} from "@pmcp-codegen/runtime/internal/servers";
import { checkTool } from "../bundle/check-tool.js";
import { slugServerId } from "../bundle/server-naming.js";
import type { Tool } from "../bundle/types.js";
import { listAllTools } from "../export/list-all-tools.js";
import { planCalls, type SamplesFile } from "./plan-calls.js";

export interface DiscoverOptions {
  samples: SamplesFile;
  /** `tool` or `server/tool` names that may be called although not annotated read-only. */
  allowed: ReadonlySet<string>;
  recorder: ObservationRecorder;
  /** Budget for connecting and listing, and for each call. */
  timeoutMs: number;
}

export interface ToolOutcome {
  tool: string;
  /** Why the tool was not called; absent when it was. */
  skipped?: string;
  calls: number;
  recorded: number;
  /** Of those recorded, the results that held no JSON (prose, images, links): nothing to learn a schema from. */
  withoutJson: number;
  /** The message of each failed call. */
  failures: string[];
}

export type DiscoverOutcome =
  | {
      ok: true;
      source: ServerSource;
      serverId: string;
      tools: ToolOutcome[];
      listed: Tool[];
      /** What the server wrote to stdout that is not JSON-RPC, skipped (the first connection's that had any). */
      strayOutput: StrayOutput | undefined;
    }
  | { ok: false; source: ServerSource; message: string };

/** Connects to one server, lists its tools, calls those the plan allows and records each result. */
export async function discoverServer(source: ServerSource, options: DiscoverOptions): Promise<DiscoverOutcome> {
  let strayOutput: StrayOutput | undefined;
  const outcome = await discoverOn(source, options, () => ({
    signal: AbortSignal.timeout(options.timeoutMs),
    timeoutMs: options.timeoutMs,
    onStrayOutput: (stray) => {
      strayOutput ??= stray;
    },
  }));
  // Read once the connections are closed: only then is the count of skipped lines whole.
  return outcome.ok ? { ...outcome, strayOutput } : outcome;
}

async function discoverOn(source: ServerSource, options: DiscoverOptions, connectOptions: () => ConnectOptions): Promise<DiscoverOutcome> {
  let connection: Connection;
  try {
    connection = await connect(source, connectOptions());
  } catch (error) {
    return { ok: false, source, message: errorMessage(error) };
  }
  try {
    const serverId = source.id ?? slugServerId(connection.serverInfo.name);
    const raw =
      connection.capabilities.tools === undefined ? [] : (await listAllTools(connection, AbortSignal.timeout(options.timeoutMs))).tools;
    const checked = raw.map(checkTool);
    const listed = checked.flatMap((entry) => ("tool" in entry ? [entry.tool] : []));
    // Unlike export, one malformed tool does not stop discovery of the others; it is reported and skipped.
    const tools: ToolOutcome[] = checked.flatMap((entry) =>
      "tool" in entry
        ? []
        : [
            {
              tool: entry.name,
              skipped: `invalid tool definition (${entry.problem})`,
              calls: 0,
              recorded: 0,
              withoutJson: 0,
              failures: [],
            },
          ],
    );
    for (const plan of planCalls(serverId, listed, options.samples, options.allowed)) {
      if ("skip" in plan) {
        tools.push({ tool: plan.tool.name, skipped: plan.skip, calls: 0, recorded: 0, withoutJson: 0, failures: [] });
        continue;
      }
      const outcome: ToolOutcome = { tool: plan.tool.name, calls: 0, recorded: 0, withoutJson: 0, failures: [] };
      for (const args of plan.calls) {
        outcome.calls += 1;
        try {
          const result = await Promise.race([
            connection.client.request({ method: "tools/call", params: { name: plan.tool.name, arguments: args } }, CallResult, {
              timeout: options.timeoutMs,
            }),
            connection.broken,
          ]);
          throwIfError(serverId, plan.tool.name, result);
          // A result in prose or images is recorded as such: it counts for the report, not for inference.
          const observed = observedResult(serverId, plan.tool.name, result);
          options.recorder.recordObserved(serverId, plan.tool.name, observed);
          outcome.recorded += 1;
          if ("content" in observed) outcome.withoutJson += 1;
        } catch (error) {
          // The outcome line names the tool already.
          outcome.failures.push(errorMessage(error).replace(`${serverId}/${plan.tool.name}: `, ""));
          // A call that stopped the server must not fail every later one: reconnect, as the runtime does.
          if (connection.closed) {
            await connection.close();
            connection = await connect(source, connectOptions());
          }
        }
      }
      tools.push(outcome);
    }
    return { ok: true, source, serverId, tools, listed, strayOutput: undefined };
  } catch (error) {
    return { ok: false, source, message: errorMessage(error) };
  } finally {
    await connection.close();
  }
}
