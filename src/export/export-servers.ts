import type { ServerSource } from "@pmcp-codegen/runtime/internal";
import { errorMessage } from "@pmcp-codegen/runtime/internal";
import { MAX_TIMEOUT_MS } from "@pmcp-codegen/runtime/internal/numbers";
import { type Connection, connect, type StrayOutput, strayOutputWarning } from "@pmcp-codegen/runtime/internal/servers";
import { checkTool } from "../bundle/check-tool.js";
import { slugServerId } from "../bundle/server-naming.js";
import type { BundleServer, Endpoint, Tool } from "../bundle/types.js";
import { PmcpError } from "../errors.js";
import { listAllTools } from "./list-all-tools.js";

export type ServerProgress =
  | { state: "connecting" }
  | { state: "listing"; transport: string }
  | { state: "done"; id: string; tools: number }
  | { state: "failed"; message: string };

export type ServerOutcome =
  | {
      ok: true;
      source: ServerSource;
      server: BundleServer;
      transport: string;
      ttlMs: number | undefined;
      /** What a stdio server wrote to stdout that is not JSON-RPC, skipped: the command warns of it. */
      strayOutput: StrayOutput | undefined;
      /** With `keepConnections`, the connection it was listed on, still open: the caller's to use and close. */
      connection: Connection | undefined;
    }
  | { ok: false; source: ServerSource; message: string };

/** A server as listed now, and how long the server says the listing stays good (`ttlMs`, 2026-07-28 only). */
export interface ServerListing {
  server: BundleServer;
  ttlMs: number | undefined;
}

/** Lists again no more often than this, whatever `ttlMs` a server sends. */
const MIN_RELIST_MS = 1000;

/**
 * When a long-lived session (pmcp dev, serve exec) lists a server again: when its listing's `ttlMs`
 * runs out, at most once a second; never for a server that gives none, or 0 (its changes come as
 * notifications, or a config save).
 */
export function relistDelay(ttlMs: number | undefined): number | undefined {
  return ttlMs === undefined || ttlMs === 0 ? undefined : Math.min(Math.max(ttlMs, MIN_RELIST_MS), MAX_TIMEOUT_MS);
}

export interface ExportOptions {
  /** Budget for one server: connect, initialize and every tools/list page. */
  timeoutMs: number;
  /** Servers contacted at once. */
  concurrency: number;
  /** Ends every listing under way (each fails), and starts no more. */
  signal?: AbortSignal;
  onProgress?: (index: number, progress: ServerProgress) => void;
  /** Leave each server listed running, its connection in the outcome, rather than closing it. */
  keepConnections?: boolean;
}

/** Exports every source, `concurrency` at a time; one server's failure never stops the others. */
export async function exportServers(sources: readonly ServerSource[], options: ExportOptions): Promise<ServerOutcome[]> {
  const outcomes: ServerOutcome[] = new Array(sources.length);
  let next = 0;
  const worker = async () => {
    while (next < sources.length) {
      const index = next++;
      const source = sources[index]!;
      options.onProgress?.(index, { state: "connecting" });
      try {
        const { server, ttlMs, transport, strayOutput, connection } = await exportOne(source, options, (transport) =>
          options.onProgress?.(index, { state: "listing", transport }),
        );
        outcomes[index] = { ok: true, source, server, transport, ttlMs, strayOutput, connection };
        options.onProgress?.(index, { state: "done", id: server.id, tools: server.tools.length });
      } catch (error) {
        const message = errorMessage(error);
        outcomes[index] = { ok: false, source, message };
        options.onProgress?.(index, { state: "failed", message });
      }
    }
  };
  const workers = Math.max(1, Math.min(options.concurrency, sources.length));
  await Promise.all(Array.from({ length: workers }, worker));
  return outcomes;
}

/** One line per server that wrote to stdout what is not JSON-RPC: skipped, and the server used. */
export function strayOutputWarnings(outcomes: readonly ServerOutcome[]): string[] {
  return outcomes.flatMap((outcome) =>
    outcome.ok && outcome.strayOutput !== undefined ? [strayOutputWarning(outcome.server.id, outcome.strayOutput)] : [],
  );
}

async function exportOne(
  source: ServerSource,
  { timeoutMs, signal, keepConnections = false }: ExportOptions,
  onListing: (transport: string) => void,
): Promise<ServerListing & { transport: string; strayOutput: StrayOutput | undefined; connection: Connection | undefined }> {
  if (signal?.aborted) throw new PmcpError("SERVER_FAILED", "aborted");
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let connected = false;
  let stop = () => {};
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      // While connecting, the connect's own failure says it (and quotes what a server that never answered printed).
      controller.abort(new DOMException(`timed out after ${timeoutMs} ms`, "TimeoutError"));
      if (connected) reject(new PmcpError("SERVER_FAILED", `timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    stop = () => {
      reject(new PmcpError("SERVER_FAILED", "aborted"));
      controller.abort();
    };
  });
  deadline.catch(() => {});
  signal?.addEventListener("abort", stop, { once: true });
  const work = (async () => {
    let strayOutput: StrayOutput | undefined;
    const connection = await connect(source, { signal: controller.signal, timeoutMs, onStrayOutput: (stray) => (strayOutput = stray) });
    connected = true;
    let listing: ServerListing;
    try {
      if (controller.signal.aborted) throw new PmcpError("SERVER_FAILED", signal?.aborted ? "aborted" : `timed out after ${timeoutMs} ms`);
      onListing(connection.transport);
      listing = await listServer(connection, source, controller.signal);
    } catch (error) {
      await connection.close();
      throw error;
    }
    // Listed after the deadline, or once the caller gave up: nobody takes the connection.
    const kept = keepConnections && !controller.signal.aborted;
    if (!kept) await connection.close();
    return { transport: connection.transport, ...listing, strayOutput, connection: kept ? connection : undefined };
  })();
  try {
    return await Promise.race([work, deadline]);
  } finally {
    signal?.removeEventListener("abort", stop);
    clearTimeout(timer);
    controller.abort();
    // A connection still opening when the deadline hits is closed by the abort; give it a moment to go.
    await Promise.race([work.catch(() => {}), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  }
}

/** A connected server as the bundle records it: its every tool, listed now. `pmcp dev` lists again on `list_changed`. */
export async function listServer(connection: Connection, source: ServerSource, signal: AbortSignal): Promise<ServerListing> {
  const { tools, ttlMs } =
    connection.capabilities.tools === undefined ? { tools: [], ttlMs: undefined } : await listAllTools(connection, signal);
  const server: BundleServer = {
    id: source.id ?? slugServerId(connection.serverInfo.name),
    serverInfo: connection.serverInfo,
    protocolVersion: connection.protocolVersion,
    ...(connection.instructions === undefined ? {} : { instructions: connection.instructions }),
    endpoint: recordEndpoint(source, connection.transport),
    tools: tools.map((tool, index) => validTool(tool, index)),
  };
  return { server, ttlMs };
}

/** Export keeps a server's listing whole or not at all, so one malformed tool fails the server. */
function validTool(raw: unknown, index: number): Tool {
  const checked = checkTool(raw, index);
  if ("tool" in checked) return checked.tool;
  throw new PmcpError("SERVER_FAILED", `tools/list returned an invalid ${checked.label}: ${checked.problem}`);
}

function recordEndpoint(source: ServerSource, transport: string): Endpoint {
  if (source.kind === "stdio") return { transport: "stdio", command: source.recorded.command, args: source.recorded.args };
  return { transport: transport === "sse" ? "sse" : "streamable-http", url: source.recordedUrl };
}
