// Builds a checker start-up snapshot (checker-snapshot.ts) into a temporary file and moves it into
// place only once whole, so that no checker ever starts from half a file; then removes the lock.
// Arguments: the snapshot entry, the snapshot's path, the lock's path.
import { spawnSync } from "node:child_process";
import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";

const [entry, blob, lock] = process.argv.slice(2) as [string, string, string];
const temporary = `${blob}.${process.pid}.tmp`;
const script = `${blob}.${process.pid}.cjs`;
try {
  // The snapshot builder runs its script with `require` alone; TypeScript's CommonJS output also writes to `exports`.
  writeFileSync(script, `var exports = {};\n${readFileSync(entry, "utf8")}`, { mode: 0o600 });
  const built = spawnSync(process.execPath, ["--snapshot-blob", temporary, "--build-snapshot", script], { stdio: "ignore", cwd: tmpdir() });
  if (built.status === 0) {
    // Node writes the blob under the umask; one of 0 would leave it writable by anyone, and so unused.
    chmodSync(temporary, 0o600);
    renameSync(temporary, blob);
  }
} finally {
  rmSync(temporary, { force: true });
  rmSync(script, { force: true });
  rmSync(lock, { force: true });
}
