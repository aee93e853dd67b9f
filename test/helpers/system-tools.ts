import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { readdir } from "node:fs/promises";

/**
 * The tools outside npm that some tests need, each with what it takes to find it. One command installs
 * them all (INSTALL); under REQUIRE=1 (`.ci/run` sets it) a missing tool fails the test files that need
 * it instead of skipping their tests, so that CI never passes by testing less.
 */
export type SystemTool = "nginx" | "rust" | "git" | "pid-namespace";

/** The one command that installs every tool below, from Debian's packages. */
export const INSTALL = "scripts/install-system-tools.sh";
/** Set to 1, a missing tool fails the tests that need it. */
export const REQUIRE = "PMCP_REQUIRE_SYSTEM_TOOLS";

/** Where Debian's librust-*-dev packages put their crates: cargo reads it as a directory source. */
export const CARGO_REGISTRY = "/usr/share/cargo/registry";

/** Debian's nginx, wherever PATH has it (root's PATH has /usr/sbin, a user's may not). */
export const NGINX = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((path) => existsSync(path)) ?? "nginx";

/** The output of a command, or undefined when it cannot run or fails. */
function output(command: string, args: readonly string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: 60_000 }, (error, stdout) => resolve(error === null ? stdout : undefined));
  });
}

/** Why each tool is not usable here, or undefined when it is. */
const CHECKS: Record<SystemTool, () => Promise<string | undefined>> = {
  async nginx() {
    return (await output(NGINX, ["-v"])) === undefined ? "nginx is not installed" : undefined;
  },
  async rust() {
    if ((await output("cargo", ["--version"])) === undefined) return "cargo is not installed";
    // The generated trait's `async fn` needs Rust 1.75 (Debian 12's rustc package is 1.63).
    const version = (await output("rustc", ["--version"]))?.match(/(\d+)\.(\d+)/);
    if (version === undefined || version === null) return "rustc is not installed";
    if (Number(version[1]) === 1 && Number(version[2]) < 75) return `rustc ${version[1]}.${version[2]} is older than 1.75`;
    const crates = await readdir(CARGO_REGISTRY).catch(() => [] as string[]);
    const absent = ["serde", "serde_derive", "serde_json"].filter((crate) => !crates.some((name) => name.startsWith(`${crate}-`)));
    return absent.length === 0 ? undefined : `Debian's ${absent.join(", ")} crates are not in ${CARGO_REGISTRY}`;
  },
  async git() {
    return (await output("git", ["--version"])) === undefined ? "git is not installed" : undefined;
  },
  async "pid-namespace"() {
    // util-linux's unshare, as root: a namespace of its own, whose next pid can be set.
    const made = await output("unshare", [
      "--pid",
      "--fork",
      "--mount-proc",
      "sh",
      "-c",
      "echo 9 > /proc/sys/kernel/ns_last_pid && echo ok",
    ]);
    return made?.trim() === "ok" ? undefined : "unshare cannot make a pid namespace whose next pid can be set (it needs root)";
  },
};

/** What each tool is for, said beside why it is missing. */
const NEEDED_FOR: Record<SystemTool, string> = {
  nginx: "the reverse proxy in front of two replicas",
  rust: "cargo and rustc ≥ 1.75 with Debian's serde crates build the generated Rust offline",
  git: "the working tree's status",
  "pid-namespace": "a pid reused by another process group, made to happen",
};

/**
 * Undefined when `tool` is here; else the one line that names it, what it is for and the command that
 * installs it, also written to stderr, for the tests that need it to skip with (`describe.skipIf`),
 * counted as skipped in the summary. Under PMCP_REQUIRE_SYSTEM_TOOLS=1 a missing tool throws instead:
 * the test file that needs it fails.
 */
export async function missing(tool: SystemTool): Promise<string | undefined> {
  const why = await CHECKS[tool]();
  if (why === undefined) return undefined;
  const line = `${why} (${NEEDED_FOR[tool]}): ${INSTALL} installs it`;
  if (process.env[REQUIRE] === "1") throw new Error(`${REQUIRE}=1, but ${line}`);
  console.warn(`skipped: ${line}`);
  return line;
}
