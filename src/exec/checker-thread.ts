// The type-checker's thread: a program's types can make TypeScript run for minutes and take
// gigabytes (a mapped type over a 100-member union, three deep), so checking happens here,
// where the host can end it, and never on the server's own thread.
import module from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import { errorMessage } from "@pmcp-codegen/runtime/internal/text";
import type { CheckReply, CheckRequest } from "./check-protocol.js";

const { declarations, compileCache } = workerData as { declarations: string; compileCache: string | undefined };

const port = parentPort;
if (port === null) throw new Error("checker-thread runs only as a worker thread");

const reply = (message: CheckReply) => port.postMessage(message);

try {
  // A thread does not share its host's compile cache: told its folder, it reuses the compiler's compiled
  // code (9 MB of it) instead of compiling it again at every start. Loaded after, so that the cache covers it.
  if (compileCache !== undefined) module.enableCompileCache?.(compileCache);
  const { createProgramChecker } = await import("./type-check.js");
  const checker = createProgramChecker(declarations);
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
