// npm test, after the lint and the unchecked emit of dist/ (npm run emit): the type checks run beside the
// test suite rather than before it. tsc works on one core for half a minute, while the suite keeps both
// busy only part of the time; run in turn, the other core idled through the checks.
// Arguments go to vitest (`npm test -- test/integration/cli.test.ts`). The exit code is vitest's, or the checks' when
// the suite passed and a check did not; a check's diagnostics are printed after the suite's summary.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const bin = (name, path) => join(dirname(require.resolve(`${name}/package.json`)), path);

/** The runtime package (emitted unchecked), then the whole tree against dist/: one after the other, on one core. */
const CHECKS = [
  ["-p", "packages/runtime", "--noEmit"],
  ["-p", "tsconfig.json", "--noEmit"],
];

async function typeCheck(args) {
  const child = spawn(process.execPath, [bin("typescript", "bin/tsc"), ...args, "--pretty"], { stdio: ["ignore", "pipe", "pipe"] });
  const output = [];
  child.stdout.on("data", (chunk) => output.push(chunk));
  child.stderr.on("data", (chunk) => output.push(chunk));
  const [code, signal] = await once(child, "exit");
  return { command: `tsc ${args.join(" ")}`, ok: code === 0, output: Buffer.concat(output), code: code ?? 1, signal };
}

const checks = (async () => {
  const results = [];
  for (const args of CHECKS) results.push(await typeCheck(args));
  return results;
})();
const suite = spawn(process.execPath, [bin("vitest", "vitest.mjs"), "run", ...process.argv.slice(2)], { stdio: "inherit" });
const [[suiteCode, suiteSignal], results] = await Promise.all([once(suite, "exit"), checks]);

for (const result of results) {
  if (result.ok) process.stdout.write(`${result.command}: no problems\n`);
  else process.stderr.write(`\n${result.command} failed${result.signal ? ` on ${result.signal}` : ""}:\n${result.output}`);
}
const failedCheck = results.find((result) => !result.ok);
process.exitCode = suiteCode !== 0 || suiteSignal !== null ? (suiteCode ?? 1) : (failedCheck?.code ?? 0);
