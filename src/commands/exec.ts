import { readFile } from "node:fs/promises";
import { count } from "../count.js";
import { PmcpError } from "../errors.js";
import { diagnosticLines, FAILURE_TAGS, outcomeJson } from "../exec/exec-session.js";
import { systemReason } from "../files/system-reason.js";
import { exitAsSignalled, watchSignals } from "../signals.js";
import type { CommandArgs } from "./shared/command.js";
import { printable, printJson } from "./shared/output.js";
import { startTelemetry } from "./shared/telemetry-sdk.js";
import { startSession } from "./start-exec-session.js";

/** `pmcp exec`: prints the result JSON on stdout and the logs on stderr; a failure is one tagged error. */
export async function exec(args: CommandArgs<"exec">): Promise<void> {
  // yargs turns a lone `-` positional into "", which names no file either.
  const stdin = args.file === "-" || args.file === "";
  const where = stdin ? "<stdin>" : args.file;
  const bytes = await (stdin ? readStdin() : readFile(args.file)).catch((error: NodeJS.ErrnoException) => {
    throw new PmcpError(
      error.code === "ENOENT" ? "NOT_FOUND" : "INVALID_ARGUMENT",
      `${args.file}: ${error.code === "ENOENT" ? "no such file" : systemReason(error)}`,
    );
  });
  const code = utf8Text(bytes, where);
  const stopTelemetry = await startTelemetry({ stdoutCarriesProtocol: false });
  // One program: no check waits behind another, so one checker process; a second would only cost its start-up.
  const started = await startSession({ ...args, learn: false }, "run", { processes: 1 }).catch(async (error: unknown) => {
    await stopTelemetry();
    throw error;
  });
  // A server that cannot start fails the command, as bad flags do, rather than being the program's outcome.
  await started.session.ready().catch(async (error: unknown) => {
    await started.close();
    await stopTelemetry();
    throw error;
  });
  const release = closeOnSignal(started.close);
  try {
    const outcome = await started.session.execute(code);
    if (args.json) printJson(outcomeJson(outcome));
    else for (const line of outcome.logs) process.stderr.write(`${printable(line)}\n`);
    if (outcome.ok) {
      if (!args.json) printJson(outcome.result);
      return;
    }
    // What an output limit kept, cut down structurally, is still the program's answer.
    if (!args.json && "result" in outcome && outcome.result !== undefined) printJson(outcome.result);
    // Positions as file:line:col, as editors and terminals link them.
    const details =
      outcome.kind === "type_error"
        ? diagnosticLines(outcome, `${where}:`)
            .map((line) => `\n${line}`)
            .join("")
        : "";
    const at = outcome.kind !== "type_error" && outcome.at !== undefined ? `${where}:${outcome.at.line}:${outcome.at.column} ` : "";
    const calls = outcome.calls.length === 0 ? "" : ` (${count(outcome.calls.length, "tool call")} made)`;
    throw new PmcpError("PROGRAM_FAILED", `${FAILURE_TAGS[outcome.kind]} ${at}${outcome.message}${calls}${details}`);
  } finally {
    release();
    await started.close();
    await stopTelemetry();
  }
}

/**
 * Until released, a signal closes the session, its stdio servers with it (a server busy with a
 * call would outlive a parent that just exits), then exits with the signal's shell code (130 for
 * SIGINT) before the interrupted program is reported; a second signal exits at once.
 */
function closeOnSignal(close: () => Promise<void>): () => void {
  const watch = watchSignals();
  void watch.signalled.then(() => close().finally(() => exitAsSignalled(watch.received!)));
  return watch.release;
}

async function readStdin(): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The program's text; bytes that are not UTF-8 would otherwise run as U+FFFD, a program other than the one written. */
function utf8Text(bytes: Buffer, where: string): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new PmcpError("INVALID_ARGUMENT", `${where}: not UTF-8 text`);
  }
}
