import type { ChildProcess } from "node:child_process";
import { PassThrough } from "node:stream";
import { type JSONRPCMessage, SdkError, SdkErrorCode, serializeMessage, type Transport } from "@modelcontextprotocol/client";
import { getDefaultEnvironment } from "@modelcontextprotocol/client/stdio";
import { spawnServer, stopServer } from "./process-group.js";
import { StdioReadBuffer } from "./stdio-read-buffer.js";

/**
 * How long after the server's exit its output is still read, when its pipes do not close: what it
 * wrote before exiting is in the pipe, and arrives within a few turns of the event loop.
 */
const EXIT_READ_MS = 200;

export interface StdioServerParams {
  command: string;
  args: readonly string[];
  /** Added to the SDK's safe subset of this process's environment (HOME, PATH, …). */
  env: Record<string, string>;
  cwd?: string | undefined;
  maxMessageBytes: number;
}

/**
 * The stdio client transport: the SDK's (its environment, its close sequence), with three
 * differences. The server runs in a process group of its own, stopped whole (see spawnServer):
 * the SDK's kills only the process it started, which for `npx` is npm, not the server. Its output
 * is read by a StdioReadBuffer. And sends wait their turn instead of each waiting for 'drain' with
 * a listener of its own (past ten queued calls, Node warns MaxListenersExceededWarning).
 *
 * Not a subclass of the SDK's StdioClientTransport, which spawns in start() with options of its
 * own. The era is probed on this connection (era-probe.ts), not on a second copy of the server: one
 * process, and a server that dies shows it at once.
 */
export class StdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly readBuffer: StdioReadBuffer;
  /** The server's stderr, there before start() so that no early line is missed. */
  readonly stderr = new PassThrough();
  #child: ChildProcess | undefined;
  #sending: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;

  constructor(private readonly params: StdioServerParams) {
    this.readBuffer = new StdioReadBuffer(params.maxMessageBytes);
  }

  start(): Promise<void> {
    if (this.#child !== undefined) throw new Error("the stdio transport was started already");
    return new Promise((resolve, reject) => {
      const child = spawnServer(this.params.command, this.params.args, {
        env: { ...getDefaultEnvironment(), ...this.params.env },
        stdio: ["pipe", "pipe", "pipe"],
        shell: false,
        windowsHide: true,
        ...(this.params.cwd === undefined ? {} : { cwd: this.params.cwd }),
      });
      this.#child = child;
      child.on("error", (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.on("spawn", () => resolve());
      child.on("close", () => this.#ended(child));
      // A process of another session may hold the server's stdout for ever, and then 'close' never
      // comes: the server's exit ends the connection, once what it wrote before has been read.
      child.on("exit", () => setTimeout(() => this.#ended(child), EXIT_READ_MS).unref());
      child.stdin?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("error", (error) => this.onerror?.(error));
      child.stdout?.on("data", (chunk: Buffer) => this.#read(chunk));
      child.stderr?.pipe(this.stderr);
    });
  }

  /** The connection is over: calls in flight fail (the SDK's onclose), the next call starts the server again. */
  #ended(child: ChildProcess): void {
    if (this.#child !== child) return;
    this.#child = undefined;
    for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
    this.onclose?.();
  }

  #read(chunk: Buffer): void {
    try {
      this.readBuffer.append(chunk);
    } catch (error) {
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      try {
        const message = this.readBuffer.readMessage();
        if (message === null) return;
        this.onmessage?.(message);
      } catch (error) {
        this.onerror?.(error as Error);
      }
    }
  }

  send(message: JSONRPCMessage): Promise<void> {
    const sent = this.#sending.then(() => this.#write(message));
    this.#sending = sent.catch(() => {});
    return sent;
  }

  #write(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve, reject) => {
      const stdin = this.#child?.stdin;
      if (!stdin || stdin.writableEnded || this.#closing !== undefined)
        return reject(new SdkError(SdkErrorCode.NotConnected, "Not connected"));
      if (stdin.write(serializeMessage(message))) return resolve();
      // A server that exits with its input full never drains it: the sends queued behind would wait forever.
      const drained = () => {
        stdin.off("close", closed);
        resolve();
      };
      const closed = () => {
        stdin.off("drain", drained);
        reject(new SdkError(SdkErrorCode.NotConnected, "Not connected"));
      };
      stdin.once("drain", drained).once("close", closed);
    });
  }

  /**
   * Stops the server's group (stopServer), then lets go of its pipes: a process outside the group
   * that still holds them (one that started a session of its own) keeps no caller waiting.
   */
  close(): Promise<void> {
    this.#closing ??= (async () => {
      const child = this.#child;
      if (child !== undefined) {
        await stopServer(child);
        for (const stream of [child.stdin, child.stdout, child.stderr]) stream?.destroy();
      }
      this.readBuffer.clear();
    })();
    return this.#closing;
  }
}
