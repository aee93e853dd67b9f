/**
 * A server to export, as resolved from the command line or a config file: everything
 * needed to connect (with secrets interpolated) plus what may be recorded in the bundle.
 */
export type ServerSource = StdioSource | HttpSource;

interface SourceBase {
  /** Explicit id (`--id` or the config key); otherwise the slug of `serverInfo.name`. */
  id?: string;
  /** How the user named this server, for messages before the id is known. */
  label: string;
  /**
   * The protocol era forced by `--protocol` or a config entry's `protocol`: `legacy`, `auto` or a
   * modern version such as `2026-07-28`. Absent: the era the bundle recorded, else `auto`.
   */
  protocol?: string;
}

export interface StdioSource extends SourceBase {
  kind: "stdio";
  command: string;
  args: string[];
  /** The command line as written, before `${VAR}` interpolation: what the bundle records. */
  recorded: { command: string; args: string[] };
  /** Variables added to the child's environment. */
  env: Record<string, string>;
  /** Pass the whole parent environment (a `--stdio` command line) rather than the SDK's safe subset (config entries). */
  inheritEnv: boolean;
  cwd?: string;
  /** The largest message the server may write, in bytes (default: the SDK's 10 MiB read buffer). */
  maxMessageBytes?: number;
}

export type HttpTransportChoice = "auto" | "streamable-http" | "sse";

export interface HttpSource extends SourceBase {
  kind: "http";
  url: URL;
  /** The URL as written, before `${VAR}` interpolation and redacted: what the bundle records. */
  recordedUrl: string;
  headers: Record<string, string>;
  transport: HttpTransportChoice;
}
