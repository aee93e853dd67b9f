#!/usr/bin/env node
import { printable } from "../commands/shared/output.js";
import { systemReason } from "../files/system-reason.js";
import { run } from "./program.js";

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
