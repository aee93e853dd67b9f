// The type-checker's process: a program's types can make TypeScript run for minutes and take
// gigabytes (a mapped type over a 100-member union, three deep), so checking happens here, where
// the host can end it, and never in the server's own process. A process, not a worker thread: a
// thread that reaches its heap limit may abort the whole process it shares (Node calls the limit
// best-effort; nodejs/node#47224), and with it serve exec and every session it serves.
import { createRequire } from "node:module";
import { errorMessage } from "@pmcp-codegen/runtime/internal/text";
import type { CheckerStart, CheckReply, CheckRequest } from "./check-protocol.js";

const channel = process.send?.bind(process);
if (channel === undefined) throw new Error("checker-process runs only as a child process with an IPC channel");
const reply = (message: CheckReply) => void channel(message);
// Its host gone (killed, or exited without closing it), nothing is left to check for.
process.on("disconnect", () => process.exit(0));

process.once("message", (start: CheckerStart) => {
  try {
    // By require: a process started from the checker's snapshot has no dynamic import().
    const { createProgramChecker } = createRequire(import.meta.url)("./type-check.js") as typeof import("./type-check.js");
    const checker = createProgramChecker(start.declarations);
    process.on("message", (request: CheckRequest) => {
      try {
        if (request.type === "update") {
          checker.updateDeclarations(request.declarations);
          reply({ type: "updated", id: request.id });
          return;
        }
        // A check carries only declarations its host had compiled (in this process or another).
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
    reply({ type: "ready" });
  } catch (error) {
    reply({ type: "failed", id: -1, message: errorMessage(error) });
  }
});
