import { errorMessage } from "@pmcp-codegen/runtime/internal/text";
import { loadPmcpConfig } from "../config/pmcp-config.js";
import { createExecServer } from "../exec/exec-server.js";
import { httpSettings, serveHttp, serveStdio } from "./serve-inspect.js";
import type { CommandArgs } from "./shared/command.js";
import { printable } from "./shared/output.js";
import { startTelemetry } from "./shared/telemetry-sdk.js";
import { startSession } from "./start-exec-session.js";

/**
 * `pmcp serve exec`: code mode over live servers, on stdio or local HTTP, until stopped. It
 * answers a client at once: the servers and the type-checker start meanwhile, and a start that
 * fails is one stderr line and the answer to every program.
 */
export async function serveExec(args: CommandArgs<"serve exec">): Promise<void> {
  // Read once, for the session and for who may call over HTTP.
  const project = loadPmcpConfig();
  // A bad pmcp.config fails in startSession, which awaits it; until then its rejection is not unhandled.
  project.catch(() => undefined);
  // Checked before anything starts: who may call, an address beyond loopback only with a check of it.
  const http = args.http === undefined ? undefined : await httpSettings(args, await project);
  const stopTelemetry = await startTelemetry({ stdoutCarriesProtocol: args.http === undefined });
  try {
    // The servers and the type-checker start once the client's first request has had its turn: started
    // beside it, on two cores, they took the CPU that answering `initialize` within 1 s needs.
    let serving = () => {};
    const served = new Promise<void>((resolve) => {
      serving = () => setImmediate(resolve);
    });
    const started = await startSession(args, "serve", {}, served, project);
    let stopped = false;
    started.session.ready().catch((error: unknown) => {
      if (stopped) return;
      for (const line of `serve exec could not start, and answers every program so: ${errorMessage(error)}`.split("\n"))
        process.stderr.write(`pmcp: ${printable(line)}\n`);
    });
    const create = () => createExecServer(started.session, args.profile, started.serverIds);
    try {
      if (http === undefined) await serveStdio(create, serving);
      else await serveHttp(create, "exec", http, args, serving);
    } finally {
      stopped = true;
      // A server that failed to serve never started the session's start, which close waits for.
      serving();
      await started.close();
    }
  } finally {
    await stopTelemetry();
  }
}
