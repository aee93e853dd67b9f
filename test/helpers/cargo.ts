import { execFile } from "node:child_process";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CARGO_REGISTRY, missing } from "./system-tools.js";
import { OUTPUT_ROOT } from "./typescript.js";

/** Cargo's flags for building against Debian's registry of crates only, with no network. */
export const CARGO_OFFLINE = [
  "--offline",
  "--config",
  'source.crates-io.replace-with="debian"',
  "--config",
  `source.debian.directory="${CARGO_REGISTRY}"`,
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

/** Undefined when cargo, rustc ≥ 1.75 and Debian's serde crates are all here; else why not, for the Rust tests to skip with. */
export const rustSkipped = await missing("rust");

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
