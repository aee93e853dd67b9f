import { execFile } from "node:child_process";
import { readdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { OUTPUT_ROOT } from "./typescript.js";

/** Where Debian's librust-*-dev packages put their crates: cargo reads it as a directory source. */
const REGISTRY = "/usr/share/cargo/registry";
/** Cargo's flags for building against that registry only, with no network. */
export const CARGO_OFFLINE = [
  "--offline",
  "--config",
  'source.crates-io.replace-with="debian"',
  "--config",
  `source.debian.directory="${REGISTRY}"`,
];
/** One target folder for every crate and run: serde and its derive are compiled once (about 7 s), not per test. */
const CARGO_TARGET = join(OUTPUT_ROOT, "cargo-target");

export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs a command (cargo, rustc, a built binary) with the shared target folder; never rejects. */
export function run(command: string, args: readonly string[], cwd?: string, input?: string): Promise<Ran> {
  return new Promise((resolve) => {
    const child = execFile(
      command,
      args,
      { cwd, env: { ...process.env, CARGO_TARGET_DIR: CARGO_TARGET }, timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }),
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}

/** Why generated Rust cannot be compiled here, if it cannot: a test skips with this reason. */
async function missingToolchain(): Promise<string | undefined> {
  if ((await run("cargo", ["--version"])).code !== 0) return "cargo is not installed";
  // The generated trait's `async fn` needs Rust 1.75 (Debian 12's own rustc is 1.63).
  const [major = 0, minor = 0] = ((await run("rustc", ["--version"])).stdout.match(/(\d+)\.(\d+)/) ?? []).slice(1).map(Number);
  if (major === 1 && minor < 75) return `rustc 1.${minor} is older than 1.75`;
  const crates = await readdir(REGISTRY).catch(() => [] as string[]);
  const absent = ["serde", "serde_derive", "serde_json"].filter((crate) => !crates.some((name) => name.startsWith(`${crate}-`)));
  if (absent.length === 0) return undefined;
  return `${absent.join(", ")} not in ${REGISTRY} (apt-get install librust-serde-dev librust-serde-json-dev librust-serde-derive-dev)`;
}

/**
 * Undefined when cargo, rustc ≥ 1.75 and Debian's serde crates are all here; else why not. CI sets
 * PMCP_REQUIRE_RUST=1 so that a missing toolchain fails the run rather than skipping the Rust tests.
 */
export const rustSkipped = await missingToolchain();
if (rustSkipped !== undefined && process.env.PMCP_REQUIRE_RUST === "1") throw new Error(`PMCP_REQUIRE_RUST=1, but ${rustSkipped}`);

/** Every line of cargo's output that is a warning or an error. */
export function diagnostics(output: string): string[] {
  return output.split("\n").filter((line) => /^(warning|error)/.test(line));
}

/**
 * Writes the Cargo.toml of a crate named `name` that depends on serde (with derive) and serde_json only,
 * with serde_json's `float_roundtrip`: without it, serde_json reads some floats one unit in the last place off.
 */
export function writeCargoToml(crate: string, name: string): Promise<void> {
  return writeFile(
    join(crate, "Cargo.toml"),
    `[package]\nname = "${name}"\nversion = "0.0.0"\nedition = "2021"\n\n[dependencies]\nserde = { version = "1", features = ["derive"] }\nserde_json = { version = "1", features = ["float_roundtrip"] }\n`,
  );
}
