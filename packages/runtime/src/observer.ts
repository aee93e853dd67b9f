import { readFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Observed } from "./call-result.js";
import { ConfigurationError } from "./errors.js";
import { writeFilesAtomically } from "./fs/atomic-write.js";
import { makeFolders } from "./fs/make-folders.js";
import { lockForReplace } from "./fs/replace-lock.js";
import { DEFAULT_MAX_SAMPLES, wholeNumberProblem } from "./number-rules.js";
import { OBSERVATION_FORMAT, type ObservationHeader, observationPath, parseObservationLog } from "./observation-log.js";
import { boundSample, MAX_LOG_BYTES, type SampleCut } from "./sample-bounds.js";

export interface ObserveOptions {
  /** Folder of the logs: one JSONL file per server and tool, read by `pmcp schema infer`. */
  dir: string;
  /** Samples kept per tool; beyond that a reservoir keeps a uniform sample of everything seen (default 200). */
  maxSamples?: number;
  /** Keep structure only: strings become their length class, numbers their kind, booleans `false`. */
  redact?: boolean;
  /** Told when a log cannot be read or written; observing never fails a call (default: a process warning). */
  onError?: (error: Error) => void;
}

/** A result as recorded: a value is encoded at once, so a caller changing the returned value cannot change the log. */
interface Recorded {
  at: string;
  json?: string;
  /** How the value was cut down to a sample's bounds. */
  cut?: SampleCut[];
  /** The content kinds of a result that holds no JSON. */
  content?: string[];
}

/** A tool's log in memory: its header and its sample lines, ready to write. */
interface LoadedLog {
  header: ObservationHeader;
  lines: string[];
}

interface ToolLog {
  server: string;
  tool: string;
  queue: Recorded[];
  /** The drain in progress; records made meanwhile are written by its next round. */
  draining: Promise<void> | undefined;
  /** The file could not be read as a log: it is left alone rather than overwritten. */
  broken: boolean;
}

/**
 * Records tool results into observation logs. `record` never waits and never throws;
 * writes for one tool are coalesced, locked against other processes, and go through a
 * temp file and rename, so a crash leaves either the old log or the new one.
 */
export class ObservationRecorder {
  readonly #dir: string;
  readonly #max: number;
  readonly #redact: boolean;
  readonly #onError: (error: Error) => void;
  readonly #tools = new Map<string, ToolLog>();

  constructor(options: ObserveOptions) {
    this.#dir = options.dir;
    this.#max = options.maxSamples ?? DEFAULT_MAX_SAMPLES;
    this.#redact = options.redact ?? false;
    this.#onError = options.onError ?? ((error) => process.emitWarning(error.message, "PmcpObservationWarning"));
    const problem = wholeNumberProblem(this.#max);
    if (problem !== undefined) throw new ConfigurationError(`observe.maxSamples ${problem}`);
  }

  /** Queues one JSON result of `server`/`tool` for its log. */
  record(server: string, tool: string, value: unknown): void {
    this.recordObserved(server, tool, { value });
  }

  /** Queues one result for its log: its JSON value, or the kinds of content it held instead (which inference leaves out). */
  recordObserved(server: string, tool: string, observed: Observed): void {
    const key = JSON.stringify([server, tool]);
    let state = this.#tools.get(key);
    if (state === undefined) {
      state = { server, tool, queue: [], draining: undefined, broken: false };
      this.#tools.set(key, state);
    }
    if (state.broken) return;
    const at = new Date().toISOString();
    state.queue.push("value" in observed ? { at, ...sampleOf(observed.value, this.#redact) } : { at, content: observed.content });
    const current = state;
    current.draining ??= this.#drain(current).finally(() => {
      current.draining = undefined;
    });
  }

  /** Resolves once everything recorded so far is on disk. */
  async flush(): Promise<void> {
    for (;;) {
      const pending = [...this.#tools.values()].flatMap((state) => (state.draining === undefined ? [] : [state.draining]));
      if (pending.length === 0) return;
      await Promise.all(pending);
    }
  }

  async #drain(state: ToolLog): Promise<void> {
    const path = observationPath(this.#dir, state.server, state.tool);
    while (state.queue.length > 0 && !state.broken) {
      const batch = state.queue.splice(0);
      try {
        await this.#append(path, state, batch);
      } catch (error) {
        state.queue.length = 0;
        this.#onError(
          new Error(
            `observations of ${state.server}/${state.tool} not recorded: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
      }
    }
  }

  /**
   * Other processes may observe the same tool into the same folder: the log is read, added to
   * and replaced under a lock, so the reservoir continues from what is on disk and no writer's
   * samples are lost to another's rename.
   */
  async #append(path: string, state: ToolLog, batch: Recorded[]): Promise<void> {
    await makeFolders(dirname(path));
    const release = await lockForReplace(await loadLockfile(), path, (error) =>
      this.#onError(new Error(`observations of ${state.server}/${state.tool}: lock lost (${error.message})`)),
    );
    try {
      let log: LoadedLog;
      try {
        log = await this.#load(path, state);
      } catch (error) {
        // A file that is not a log of this tool is left alone rather than overwritten.
        state.broken = true;
        throw error;
      }
      for (const recorded of batch) {
        if (recorded.json === undefined) {
          addSample(log, recorded.at, JSON.stringify({ at: recorded.at, content: recorded.content }), this.#max);
          continue;
        }
        // A log is all redacted or not at all: a plain result joining a redacted log is redacted too.
        const { json, cut } = log.header.redacted && !this.#redact ? sampleOf(JSON.parse(recorded.json), true, recorded.cut) : recorded;
        const cutNote = cut === undefined || cut.length === 0 ? "" : `,"cut":${JSON.stringify(cut)}`;
        addSample(log, recorded.at, `{"at":${JSON.stringify(recorded.at)},"value":${json}${cutNote}}`, this.#max);
      }
      keepWithin(log.lines, MAX_LOG_BYTES);
      await writeFilesAtomically([{ path, content: [JSON.stringify(log.header), ...log.lines].map((line) => `${line}\n`).join("") }]);
    } finally {
      await release();
    }
  }

  async #load(path: string, state: ToolLog): Promise<LoadedLog> {
    const text = await readFile(path, "utf8").catch((error: NodeJS.ErrnoException) => {
      if (error.code === "ENOENT") return undefined;
      throw error;
    });
    if (text === undefined) {
      return {
        header: {
          format: OBSERVATION_FORMAT,
          server: state.server,
          tool: state.tool,
          seen: 0,
          firstSeen: "",
          lastSeen: "",
          redacted: this.#redact,
        },
        lines: [],
      };
    }
    const { header, samples } = parseObservationLog(text, path);
    if (header.server !== state.server || header.tool !== state.tool) {
      throw new Error(`${path} holds ${header.server}/${header.tool} (names that differ only in case share a file on this file system)`);
    }
    // Asked to redact a log that was not: its kept samples are redacted now, not left beside the new ones.
    const redactOld = this.#redact && !header.redacted;
    header.redacted ||= this.#redact;
    return {
      header,
      lines: samples.map((sample) =>
        JSON.stringify(redactOld && "value" in sample ? { at: sample.at, value: redactValue(sample.value) } : sample),
      ),
    };
  }
}

/**
 * proper-lockfile is an optional peer dependency, loaded on first use: most clients never
 * observe, and those that do are told how to get it.
 */
async function loadLockfile(): Promise<typeof import("proper-lockfile")> {
  try {
    return await import("proper-lockfile");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new Error("observing needs the optional peer dependency proper-lockfile: npm install proper-lockfile", { cause: error });
  }
}

/**
 * A result as a sample: within the sample bounds (cut down past them, see boundSample),
 * redacted when asked; `cut` says which bounds cut it, also before.
 */
function sampleOf(value: unknown, redact: boolean, before: readonly SampleCut[] = []): { json: string; cut: SampleCut[] } {
  const bounded = boundSample(value);
  // Bounded first, and again once redacted: redactValue recurses, and a redacted string may be longer than the one it stands for.
  const sample = redact ? boundSample(redactValue(bounded.value)) : bounded;
  return { json: sample.json, cut: [...new Set([...before, ...bounded.cut, ...sample.cut])] };
}

/** Drops lines picked at random until their UTF-8 bytes are at most `max`: a uniform sample stays one. */
function keepWithin(lines: string[], max: number): void {
  let bytes = lines.reduce((sum, line) => sum + Buffer.byteLength(line) + 1, 0);
  while (bytes > max && lines.length > 0) {
    const [dropped] = lines.splice(Math.floor(Math.random() * lines.length), 1);
    bytes -= Buffer.byteLength(dropped ?? "") + 1;
  }
}

/** Algorithm R: after n results, each one is in the sample with probability max/n. */
function addSample(log: LoadedLog, at: string, line: string, max: number): void {
  const header = log.header;
  header.seen += 1;
  if (header.firstSeen === "") header.firstSeen = at;
  header.lastSeen = at;
  while (log.lines.length > max) log.lines.splice(Math.floor(Math.random() * log.lines.length), 1);
  if (log.lines.length < max) {
    log.lines.push(line);
    return;
  }
  const slot = Math.floor(Math.random() * header.seen);
  if (slot < max) log.lines[slot] = line;
}

/** The structure of a value without its data: what `redact: true` stores. */
export function redactValue(value: unknown): unknown {
  if (typeof value === "string") return `<string ${lengthClass([...value].length)}>`;
  if (typeof value === "number") return Number.isInteger(value) ? 0 : 0.5;
  if (typeof value === "boolean") return false;
  if (Array.isArray(value)) return value.map(redactValue);
  if (value !== null && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, redactValue(item)]));
  return value;
}

function lengthClass(length: number): string {
  if (length === 0) return "empty";
  if (length <= 16) return "1-16";
  if (length <= 256) return "17-256";
  return "257+";
}
