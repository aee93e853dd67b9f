import { ProtocolError, SdkError, SdkErrorCode } from "@modelcontextprotocol/client";
import { z } from "zod";
import { formatIssues } from "../issues.js";
import { MAX_TIMEOUT_MS } from "../number-rules.js";
import type { Connection } from "./connect.js";

/**
 * Permissive on purpose: `Client.listTools()` drops unknown annotation keys and throws on
 * output schemas it cannot compile, so we send `tools/list` ourselves and keep every tool
 * object untouched. Tool shapes are checked by the caller.
 */
const ListPage = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().optional(),
  /** 2026-07-28: how long the listing may be kept, in milliseconds; anything else than a number ≥ 0 is ignored. */
  ttlMs: z.unknown().optional(),
});

/** A server's tools, as sent, and how long the server says the listing stays good (the shortest of its pages'). */
export interface ToolListing {
  tools: unknown[];
  ttlMs: number | undefined;
}

const MAX_PAGES = 1000;

/**
 * Follows `nextCursor` to the end and returns every tool object as sent, with the listing's `ttlMs`.
 * A server that breaks the listing (an error, a malformed page, a cursor loop) fails it with
 * `fail(message)`: each caller throws its own typed error with the same words.
 */
export async function listAllTools(connection: Connection, signal: AbortSignal, fail: (message: string) => Error): Promise<ToolListing> {
  const tools: unknown[] = [];
  let ttlMs: number | undefined;
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    if (page > MAX_PAGES) throw fail(`tools/list did not end after ${MAX_PAGES} pages`);
    const result = await Promise.race([requestPage(connection, cursor, signal, fail), connection.broken]);
    tools.push(...result.tools);
    if (typeof result.ttlMs === "number" && Number.isFinite(result.ttlMs) && result.ttlMs >= 0)
      ttlMs = Math.min(ttlMs ?? Number.POSITIVE_INFINITY, result.ttlMs);
    cursor = result.nextCursor;
    // A missing cursor ends the listing (spec); an empty string is treated the same way.
    if (!cursor) return { tools, ttlMs };
    if (seen.has(cursor)) throw fail(`tools/list repeated cursor ${JSON.stringify(cursor.slice(0, 60))} (cursor loop)`);
    seen.add(cursor);
  }
}

async function requestPage(connection: Connection, cursor: string | undefined, signal: AbortSignal, fail: (message: string) => Error) {
  try {
    // Our own deadline (the signal) governs; the SDK's 60 s default would cut it short.
    return await connection.client.request({ method: "tools/list", params: cursor === undefined ? {} : { cursor } }, ListPage, {
      signal,
      timeout: MAX_TIMEOUT_MS,
    });
  } catch (error) {
    if (error instanceof ProtocolError) {
      // v1 SDKs prefixed "MCP error <code>: " and servers built on them often send it prefixed already.
      throw fail(`tools/list failed with JSON-RPC error ${error.code}: ${error.message.replace(/^(MCP error -?\d+: )+/, "")}`);
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
      const issues = (error.cause as { issues?: unknown } | undefined)?.issues;
      throw fail(
        Array.isArray(issues)
          ? formatIssues("tools/list returned a malformed result", issues as z.core.$ZodIssue[], { max: 1 })
          : `tools/list returned a malformed result: ${error.message}`,
      );
    }
    throw error;
  }
}
