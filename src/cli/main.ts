#!/usr/bin/env node
import module from "node:module";
import { printable } from "../commands/shared/output.js";
import { systemReason } from "../files/system-reason.js";

// Every run compiles the same modules again unless Node keeps their code cache: as tsc and npm do, in
// the system's temporary folder (NODE_DISABLE_COMPILE_CACHE=1 turns it off). It covers only modules
// loaded after this call, hence the program's import below. Node 20, past its end of life, has none.
module.enableCompileCache?.();
const { run } = await import("./program.js");

// A reader that went away (`pmcp ... | head`) ends the output quietly, as for any command line
// tool; any other failure to write stdout (a full disk) fails the command, once.
let stdoutFailed = false;
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code === "EPIPE") process.exit();
  if (stdoutFailed) return;
  stdoutFailed = true;
  process.stderr.write(`pmcp: cannot write to stdout: ${systemReason(error)}\n`);
  process.exitCode = 1;
});

// The runtime reports what it could not do (an observation not recorded, a type not learned) as
// process warnings: printed as the CLI's other warnings are, not in Node's "(node:PID) Name:" dress.
process.removeAllListeners("warning");
process.on("warning", (warning) => process.stderr.write(`warning: ${printable(warning.message)}\n`));

const code = await run(process.argv.slice(2));
process.exitCode = Math.max(code, stdoutFailed ? 1 : 0);
