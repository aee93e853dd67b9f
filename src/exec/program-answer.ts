import type { JsonValue } from "@pmcp-codegen/runtime/internal/json";
import { count } from "../count.js";
import { type ExecOutcome, outcomeText, structuredOf } from "./exec-session.js";
import { truncateJson } from "./result-json.js";

type Failed = Extract<ExecOutcome, { ok: false }>;

/** execute_program's answer: the text block an agent reads first, and the same fields structured. */
export interface ProgramAnswer {
  [key: string]: unknown;
  content: { type: "text"; text: string }[];
  structuredContent: ReturnType<typeof structuredOf>;
  isError?: true;
}

/**
 * Room kept for the JSON-RPC envelope around the answer (`{"result":…,"jsonrpc":"2.0","id":…}`),
 * which the answer does not see: its id is the client's.
 */
export const ENVELOPE_BYTES = 128;

/**
 * The answer to `outcome`, cut until its JSON, with room for the envelope, takes at most
 * `limitBytes` UTF-8 bytes: the limit counts what is sent, the text block and `structuredContent`
 * both, escapes included. Cut in this order, each as little as fits: the log lines (a last line
 * says how many were left out), the result (markers inside say what was), the calls (the message
 * says how many are listed), a type error's diagnostics, and last the message itself. A program that
 * succeeded but whose answer did not fit ends as [Output limit], as one whose result and logs did not.
 */
export function programAnswer(outcome: ExecOutcome, limitBytes: number): ProgramAnswer {
  const whole = answerOf(outcome);
  const budget = limitBytes - ENVELOPE_BYTES;
  const size = bytesOf(whole);
  if (size <= budget) return whole;

  let cut: Failed = outcome.ok
    ? {
        ok: false,
        kind: "output_limit",
        message: `the answer is ${count(size, "byte")}, more than ${limitBytes}`,
        result: outcome.result,
        logs: outcome.logs,
        calls: outcome.calls,
        durationMs: outcome.durationMs,
      }
    : outcome;
  const notes: string[] = [];
  // Room for the note on what was cut, added to the message once the cuts are known.
  const reserve = 160;
  const fits = (candidate: ExecOutcome) => bytesOf(answerOf(candidate)) + reserve <= budget;

  if (!fits(cut) && cut.logs.length > 0) {
    const logs = cut.logs;
    const base = cut;
    const keep = (kept: number): Failed => ({
      ...base,
      logs: [...logs.slice(0, kept), `…[${logs.length - kept} of ${count(logs.length, "log line")} left out]`],
    });
    cut = keep(largest(0, logs.length - 1, (kept) => fits(keep(kept))));
    notes.push("the logs");
  }
  if (!fits(cut) && cut.kind !== "type_error" && cut.result !== undefined && cut.result !== null) {
    const base = cut;
    const result: JsonValue = cut.result;
    const room = (bytes: number): Failed => ({ ...base, result: truncateJson(result, bytes) });
    cut = room(largest(0, Buffer.byteLength(JSON.stringify(result)), (bytes) => fits(room(bytes))));
    notes.push("the result");
  }
  if (!fits(cut) && cut.calls.length > 0) {
    const calls = cut.calls;
    const base = cut;
    const keep = (kept: number): Failed => ({ ...base, calls: calls.slice(0, kept) });
    const kept = largest(0, calls.length - 1, (n) => fits(keep(n)));
    cut = keep(kept);
    notes.push(`${kept} of ${count(calls.length, "call")} listed`);
  }
  if (!fits(cut) && cut.kind === "type_error" && cut.diagnostics.length > 0) {
    const base = cut;
    const keep = (kept: number): Failed => ({
      ...base,
      diagnostics: base.diagnostics.slice(0, kept),
      omitted: base.omitted + base.diagnostics.length - kept,
    });
    cut = keep(largest(0, base.diagnostics.length - 1, (n) => fits(keep(n))));
    notes.push("the problems listed");
  }
  const noted = notes.length === 0 ? "" : `; cut to fit ${count(limitBytes, "byte")}: ${notes.join(", ")}`;
  const message = cut.message;
  const final = (chars: number): Failed => ({ ...cut, message: `${clipped(message, chars)}${noted}` });
  if (bytesOf(answerOf(final(message.length))) <= budget) return answerOf(final(message.length));
  return answerOf(final(largest(0, message.length - 1, (chars) => bytesOf(answerOf(final(chars))) <= budget)));
}

function answerOf(outcome: ExecOutcome): ProgramAnswer {
  return {
    content: [{ type: "text", text: outcomeText(outcome) }],
    structuredContent: structuredOf(outcome),
    ...(outcome.ok ? {} : { isError: true }),
  };
}

function bytesOf(answer: ProgramAnswer): number {
  return Buffer.byteLength(JSON.stringify(answer as unknown as JsonValue));
}

function clipped(text: string, chars: number): string {
  return chars >= text.length ? text : `${text.slice(0, chars)}…`;
}

/** The largest n in [low, high] for which `fits` holds, `fits` holding for every smaller n when it holds for one; low when none does. */
function largest(low: number, high: number, fits: (n: number) => boolean): number {
  let found = low;
  let lo = low;
  let hi = high;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid)) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}
