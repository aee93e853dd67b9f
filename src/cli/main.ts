#!/usr/bin/env node
import { systemReason } from "./output.js";
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

const code = await run(process.argv.slice(2));
process.exitCode = Math.max(code, stdoutFailed ? 1 : 0);
