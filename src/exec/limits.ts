import { MAX_TIMEOUT_MS, type WholeNumberRange } from "@pmcp-codegen/runtime/internal/numbers";

/** What one program runs under. */
export interface Limits {
  /**
   * Wall time of the program from its arrival (waiting for a type-checker, the type-check and waiting
   * for a sandbox count), also the deadline of the CPU interrupt.
   */
  timeoutMs: number;
  /** Memory the program's VM may allocate. */
  heapBytes: number;
  /** Tool calls one program may make. */
  maxCalls: number;
  /** Tool calls of one program in flight at once; further calls wait their turn. */
  maxConcurrentCalls: number;
  /**
   * UTF-8 bytes of the result's JSON plus the log lines, the sandbox's own bound; `serve exec` cuts
   * its answer further, to this many bytes as sent (program-answer.ts).
   */
  maxOutputBytes: number;
}

export type ExecSettingKey = "maxTimeMs" | "maxHeapMb" | "maxCalls" | "maxConcurrentCalls" | "maxOutputBytes" | "maxPrograms";
export type ExecSettings = Record<ExecSettingKey, number>;

export interface ExecSetting extends WholeNumberRange {
  default: number;
  /** The flag's help, without the default and range (derived from the fields). */
  describe: string;
}

/**
 * The code-mode settings a user gives, as flags of `pmcp serve exec` / `pmcp exec` (`--max-time-ms`)
 * and as `exec` keys of `pmcp.config`: one row each, from which the flags, their help, the config's
 * schema and the checks are all derived. Each is a whole number from 1 to `max`.
 */
export const EXEC_SETTINGS: Readonly<Record<ExecSettingKey, ExecSetting>> = {
  maxTimeMs: {
    default: 30_000,
    max: MAX_TIMEOUT_MS,
    describe: "Wall time of a program in ms from its arrival, type-check included; also its CPU deadline",
  },
  // A VM's heap lives in 32-bit WASM memory; past this a limit only lets one program take the host's memory.
  maxHeapMb: { default: 64, max: 2048, describe: "Memory a program's VM may allocate, in MB" },
  maxCalls: { default: 200, describe: "Tool calls one program may make" },
  maxConcurrentCalls: { default: 16, describe: "Tool calls of one program in flight at once" },
  // Below this not even a cut answer fits: its tag, a clipped message, a marker for each part, the JSON-RPC envelope.
  maxOutputBytes: {
    default: 65_536,
    min: 1024,
    describe:
      "Bytes a program's answer may take as sent: serve exec's whole execute_program answer (both its text and structured copies), pmcp exec's result JSON plus log lines",
  },
  // Programs mostly wait for tool calls, holding their sandbox thread meanwhile, so the pool is sized for waiting programs, not for cores.
  maxPrograms: {
    default: 8,
    describe: "Programs that run at once, each in its own sandbox thread; more wait, and waiting counts against their time",
  },
};

/** The flag of a code-mode setting: `maxTimeMs` → `--max-time-ms`. */
export function execFlag(key: ExecSettingKey): string {
  return `--${key.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)}`;
}

const MB = 1024 * 1024;

export const DEFAULT_EXEC_SETTINGS = Object.fromEntries(
  Object.entries(EXEC_SETTINGS).map(([key, setting]) => [key, setting.default]),
) as ExecSettings;

/** One program's limits under these settings. */
export function limitsOf(settings: ExecSettings): Limits {
  return {
    timeoutMs: settings.maxTimeMs,
    heapBytes: settings.maxHeapMb * MB,
    maxCalls: settings.maxCalls,
    maxConcurrentCalls: settings.maxConcurrentCalls,
    maxOutputBytes: settings.maxOutputBytes,
  };
}

export const DEFAULT_LIMITS: Limits = limitsOf(DEFAULT_EXEC_SETTINGS);

export const DEFAULT_MAX_PROGRAMS = EXEC_SETTINGS.maxPrograms.default;
