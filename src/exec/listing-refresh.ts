import type { ServerSource } from "@pmcp-codegen/runtime/internal";
import type { Bundle, BundleServer } from "../bundle/types.js";
import { exportServers, relistDelay } from "../export/export-servers.js";

/** A server as listed, with how long the server says the listing stays good (`ttlMs`, 2026-07-28). */
export interface ListedServer {
  id: string;
  source: ServerSource;
  server: BundleServer;
  ttlMs: number | undefined;
}

/**
 * Keeps a long-lived session's listing as fresh as its servers ask: a server whose listing has a
 * `ttlMs` is listed again when it runs out, and the whole bundle, rebuilt by `build`, is handed to
 * `apply`. A listing that fails keeps the last one and is tried again after the same wait. The
 * timers hold no process open.
 */
export class ListingRefresh {
  readonly #servers = new Map<string, BundleServer>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #closed = false;

  constructor(
    listed: readonly ListedServer[],
    private readonly options: {
      timeoutMs: number;
      build: (servers: BundleServer[]) => Bundle;
      apply: (bundle: Bundle) => Promise<void>;
    },
  ) {
    for (const entry of listed) {
      this.#servers.set(entry.id, entry.server);
      this.#schedule(entry.id, entry.source, entry.ttlMs);
    }
  }

  close(): void {
    this.#closed = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  #schedule(id: string, source: ServerSource, ttlMs: number | undefined): void {
    const delay = relistDelay(ttlMs);
    if (this.#closed || delay === undefined) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#relist(id, source, delay);
    }, delay);
    timer.unref();
    this.#timers.add(timer);
  }

  async #relist(id: string, source: ServerSource, previousDelay: number): Promise<void> {
    const [outcome] = await exportServers([source], { timeoutMs: this.options.timeoutMs, concurrency: 1 });
    if (this.#closed || outcome === undefined) return;
    if (!outcome.ok) return this.#schedule(id, source, previousDelay);
    this.#servers.set(id, { ...outcome.server, id });
    await this.options.apply(this.options.build([...this.#servers.values()]));
    this.#schedule(id, source, outcome.ttlMs);
  }
}
