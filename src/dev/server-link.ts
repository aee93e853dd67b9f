import { errorMessage, type ServerSource } from "@pmcp-codegen/runtime/internal";
import { type Connection, connect, strayOutputWarning } from "@pmcp-codegen/runtime/internal/servers";
import type { BundleServer } from "../bundle/types.js";
import { count } from "../count.js";
import { listServer, relistDelay, type ServerListing } from "../export/export-servers.js";
import { retryDelay } from "./backoff.js";

export interface LinkEvents {
  /** The server's listing may differ from the last one: a (re)connection, or a `list_changed` to act on. */
  changed(): void;
  /** A change of state worth one line: connected, lost, cannot connect, reconnected. */
  status(line: string): void;
  /** A warning about the server, once: what it wrote to stdout that is not JSON-RPC. */
  warn(line: string): void;
}

/**
 * One server kept connected for `pmcp dev`: connects, lists, re-lists when asked after a
 * `notifications/tools/list_changed`, and reconnects with backoff whenever the connection goes,
 * until closed. Its last listing outlives a lost connection, so a restarting server's module stays.
 */
export class ServerLink {
  /** The tools as last listed; undefined until the first listing. */
  listing: BundleServer | undefined;
  private connection: Connection | undefined;
  /** A `list_changed` arrived since the last listing. */
  private stale = false;
  /** Lists again when the last listing's `ttlMs` runs out. */
  private expiry: NodeJS.Timeout | undefined;
  /** Ends the current connection's wait, so that the loop reconnects: a listing failed on a connection that looks open. */
  private drop: (problem: string) => void = () => {};
  private readonly closing = new AbortController();
  private readonly closed = new Promise<string>((resolve) =>
    this.closing.signal.addEventListener("abort", () => resolve("closed"), { once: true }),
  );
  private readonly loop: Promise<void>;
  private strayTold = false;
  private firstAttempt!: () => void;
  /** Settles after the first attempt to connect, whether it worked or not. */
  readonly tried = new Promise<void>((resolve) => {
    this.firstAttempt = resolve;
  });

  constructor(
    readonly source: ServerSource,
    private readonly timeoutMs: number,
    private readonly events: LinkEvents,
  ) {
    this.loop = this.keepConnected();
  }

  get label(): string {
    return this.listing?.id ?? this.source.id ?? this.source.label;
  }

  /** Has the next refresh list the tools again, as a `list_changed` does. */
  markStale(): void {
    this.stale = true;
  }

  /**
   * Lists the tools again if a `list_changed` asked for it. A failure keeps the last listing and
   * reconnects: an HTTP server restarted without an event stream to break (stateless, or one whose
   * session is gone) shows it only here.
   */
  async refresh(): Promise<void> {
    const connection = this.connection;
    if (!this.stale || connection === undefined) return;
    this.stale = false;
    try {
      this.listed(await listServer(connection, this.source, this.deadline()));
    } catch (error) {
      this.drop(`cannot list tools: ${errorMessage(error)}`);
    }
  }

  /** Closes the connection (a stdio server's process goes with it) and stops reconnecting. */
  async close(): Promise<void> {
    clearTimeout(this.expiry);
    this.closing.abort();
    await this.connection?.close();
    await this.loop;
  }

  /**
   * Keeps a listing; a server that says how long it stays good (`ttlMs`, 2026-07-28) is listed
   * again when that runs out, at most once a second. A server that announces its changes needs none.
   */
  private listed(listing: ServerListing): void {
    this.listing = listing.server;
    clearTimeout(this.expiry);
    const delay = relistDelay(listing.ttlMs);
    if (delay === undefined) return;
    this.expiry = setTimeout(() => {
      this.stale = true;
      this.events.changed();
    }, delay);
  }

  private deadline(): AbortSignal {
    return AbortSignal.any([this.closing.signal, AbortSignal.timeout(this.timeoutMs)]);
  }

  private async keepConnected(): Promise<void> {
    let attempt = 0;
    let lastProblem: string | undefined;
    let everConnected = false;
    while (!this.closing.signal.aborted) {
      let problem: string;
      try {
        const connection = await connect(this.source, {
          signal: this.deadline(),
          timeoutMs: this.timeoutMs,
          onStrayOutput: (stray) => {
            if (this.strayTold) return;
            this.strayTold = true;
            this.events.warn(strayOutputWarning(this.label, stray));
          },
        });
        this.connection = connection;
        // Closed while connecting: close() found nothing to close, so the connection (a child process) is closed here.
        if (this.closing.signal.aborted) {
          await connection.close();
          this.connection = undefined;
          break;
        }
        // A server whose capabilities say `listChanged: false` may still send it; it is taken at its word either way.
        connection.client.setNotificationHandler("notifications/tools/list_changed", () => {
          this.stale = true;
          this.events.changed();
        });
        // The modern era sends changes only on a stream the client asked for; its end is a lost connection.
        // A server without one (subscriptions/listen unknown) is followed by its listings' ttlMs and config saves only.
        const subscription =
          connection.era === "modern"
            ? await connection.client
                .listen({ toolsListChanged: true }, { signal: this.deadline(), timeout: this.timeoutMs })
                .catch(() => undefined)
            : undefined;
        const listing = await listServer(connection, this.source, this.deadline());
        this.listed(listing);
        this.events.status(
          `${this.label}: ${everConnected ? "reconnected" : "connected"} (${count(listing.server.tools.length, "tool")}, ${connection.transport})`,
        );
        everConnected = true;
        attempt = 0;
        lastProblem = undefined;
        this.firstAttempt();
        this.events.changed();
        // Closing the connection ourselves silences `broken`: the close signal ends the wait instead.
        problem = await Promise.race([
          connection.broken.catch((error: unknown) => errorMessage(error)),
          ...(subscription === undefined
            ? []
            : [subscription.closed.then((how) => `the server ended its subscriptions/listen stream (${how})`)]),
          this.closed,
          new Promise<string>((resolve) => {
            this.drop = resolve;
          }),
        ]);
      } catch (error) {
        problem = errorMessage(error);
      }
      this.drop = () => {};
      await this.connection?.close();
      this.connection = undefined;
      if (this.closing.signal.aborted) break;
      const delay = retryDelay(attempt++);
      // One line per change of state: a server that stays away is not reported again on every try.
      if (problem !== lastProblem)
        this.events.status(`${this.label}: ${everConnected ? "connection lost" : "cannot connect"}: ${problem}; reconnecting`);
      lastProblem = problem;
      this.firstAttempt();
      await sleep(delay, this.closing.signal);
    }
    this.firstAttempt();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
