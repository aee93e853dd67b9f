// The type-checker's thread: a program's types can make TypeScript run for minutes and take
// gigabytes (a mapped type over a 100-member union, three deep), so checking happens here,
// where the host can end it, and never on the server's own thread.
import { parentPort, workerData } from "node:worker_threads";
import { errorMessage } from "@pmcp-codegen/runtime/internal";
import type { CheckReply, CheckRequest } from "./check-protocol.js";
import { createProgramChecker } from "./type-check.js";

const port = parentPort;
if (port === null) throw new Error("checker-thread runs only as a worker thread");

const reply = (message: CheckReply) => port.postMessage(message);

try {
  const checker = createProgramChecker((workerData as { declarations: string }).declarations);
  reply({ type: "ready" });
  port.on("message", (request: CheckRequest) => {
    try {
      if (request.type === "update") {
        checker.updateDeclarations(request.declarations);
        reply({ type: "updated", id: request.id });
        return;
      }
      // A check carries only declarations its host had compiled (on this thread or another).
      if (request.declarations !== undefined) checker.updateDeclarations(request.declarations, { compiled: true });
      const { diagnostics, omitted } = checker.check(request.code);
      reply(
        diagnostics.length > 0
          ? { type: "checked", id: request.id, diagnostics, omitted }
          : { type: "checked", id: request.id, diagnostics, omitted, program: checker.transpile(request.code) },
      );
    } catch (error) {
      reply({ type: "failed", id: request.id, message: errorMessage(error) });
    }
  });
} catch (error) {
  reply({ type: "failed", id: -1, message: errorMessage(error) });
}
