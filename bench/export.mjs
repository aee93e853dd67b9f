// The export of the three reference servers in one pmcp process, against a plain SDK script
// that lists them one after another (and a bare concurrent one: the floor on this machine);
// and `pmcp --help` against `node -e 0`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { referenceExport, report, timeProcess } from "./lib.mjs";

const cli = fileURLToPath(new URL("../dist/bin/pmcp.js", import.meta.url));
const peer = fileURLToPath(new URL("./sdk-list.mjs", import.meta.url));

export function benchExport() {
  const work = mkdtempSync(join(tmpdir(), "pmcp-bench-"));
  const { servers, args: exportArgs, env } = referenceExport(cli, work);
  const exported = timeProcess(exportArgs, 7, env);
  report(
    "export of 3 reference servers",
    exported,
    timeProcess([peer, "sequential", JSON.stringify(servers)], 7, env),
    "sequential SDK listTools script",
    0.6,
  );
  // Server start-up is CPU-bound: on two cores even a bare concurrent script cannot reach the slowest single server.
  report(
    "  the same, against the floor",
    exported,
    timeProcess([peer, "concurrent", JSON.stringify(servers)], 7, env),
    "bare concurrent SDK script",
    1.2,
  );
  report("pmcp --help", timeProcess([cli, "--help"], 15), timeProcess(["-e", "0"], 15), "node -e 0", 2.5);
  rmSync(work, { recursive: true, force: true });
}
