// npm test, after the lint and the unchecked emit of dist/: the type check of the whole tree runs beside
// the test suite rather than before it. tsc works on one core for half a minute, while the suite keeps
// both busy only part of the time; run in turn, the other core idled through the check.
// Arguments go to vitest (`npm test -- test/cli.test.ts`). The exit code is vitest's, or tsc's when the
// suite passed and the check did not; the check's diagnostics are printed after the suite's summary.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const bin = (name, path) => join(dirname(require.resolve(`${name}/package.json`)), path);

const check = spawn(process.execPath, [bin("typescript", "bin/tsc"), "-p", "tsconfig.json", "--noEmit", "--pretty"], {
  stdio: ["ignore", "pipe", "pipe"],
});
const diagnostics = [];
check.stdout.on("data", (chunk) => diagnostics.push(chunk));
check.stderr.on("data", (chunk) => diagnostics.push(chunk));
const suite = spawn(process.execPath, [bin("vitest", "vitest.mjs"), "run", ...process.argv.slice(2)], { stdio: "inherit" });

const [[suiteCode, suiteSignal], [checkCode, checkSignal]] = await Promise.all([once(suite, "exit"), once(check, "exit")]);
if (checkCode !== 0) {
  process.stderr.write(`\ntype check (tsc -p tsconfig.json --noEmit) failed${checkSignal ? ` on ${checkSignal}` : ""}:\n`);
  process.stderr.write(Buffer.concat(diagnostics));
} else {
  process.stdout.write("type check (tsc -p tsconfig.json --noEmit): no problems\n");
}
process.exitCode = suiteCode !== 0 || suiteSignal !== null ? (suiteCode ?? 1) : (checkCode ?? 1);
