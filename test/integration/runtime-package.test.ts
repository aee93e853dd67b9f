import { execFile } from "node:child_process";
import { cp, mkdir, mkdtemp, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ROOT } from "../helpers/cli.js";
import { loadedBy, packageOf } from "../helpers/loaded-modules.js";

const RUNTIME_DIST = join(ROOT, "packages/runtime/dist");

async function builtFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile() && entry.name.endsWith(".js")).map((entry) => join(entry.parentPath, entry.name));
}

describe("@pmcp-codegen/runtime, the package generated clients import", () => {
  it("loads no child_process, and no generator or CLI code, until a stdio server is connected", async () => {
    const { urls, childProcess } = await loadedBy("@pmcp-codegen/runtime");
    expect(childProcess).toBe(false);
    expect(urls).not.toContain("node:child_process");
    const files = urls.filter((url) => url.startsWith("file:")).map((url) => fileURLToPath(url));
    expect(files).toContain(join(RUNTIME_DIST, "composition-client.js"));
    // Everything loaded is the runtime's own build or an installed dependency: never pmcp-codegen's dist/ or src/.
    expect(files.filter((file) => !file.startsWith(`${RUNTIME_DIST}/`) && !file.startsWith(join(ROOT, "node_modules/")))).toEqual([]);
    expect(files.filter((file) => file.startsWith(join(ROOT, "node_modules/"))).map(packageOf)).not.toContain("cross-spawn");
  });

  it("the probe sees child_process when the SDK's stdio transport is imported", async () => {
    expect((await loadedBy("@modelcontextprotocol/client/stdio")).childProcess).toBe(true);
  });

  it("imports only the packages its package.json declares", async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, "packages/runtime/package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      peerDependencies: Record<string, string>;
      peerDependenciesMeta: Record<string, { optional?: boolean }>;
    };
    const externals = new Set<string>();
    for (const file of await builtFiles(RUNTIME_DIST)) {
      for (const match of (await readFile(file, "utf8")).matchAll(/(?:from |import\()"([^."][^"]*)"/g)) {
        const [scope, name] = match[1]!.split("/");
        if (!scope!.startsWith("node:")) externals.add(scope!.startsWith("@") ? `${scope}/${name}` : scope!);
      }
    }
    // The MCP client package (v2), never the v1 SDK or the server package: no server code comes with the runtime.
    expect([...externals].sort()).toEqual([
      "@modelcontextprotocol/client",
      "@opentelemetry/api",
      "cross-spawn",
      "proper-lockfile",
      "re2js",
      "signal-exit",
      "zod",
    ]);
    expect(Object.keys(manifest.dependencies).sort()).toEqual([
      "@modelcontextprotocol/client",
      "cross-spawn",
      "re2js",
      "signal-exit",
      "zod",
    ]);
    // Loaded only if the application has them: an OpenTelemetry setup installs the API, observing needs the lock.
    expect(manifest.peerDependenciesMeta).toEqual({ "@opentelemetry/api": { optional: true }, "proper-lockfile": { optional: true } });
  });
});

describe("the runtime installed without its optional peers (proper-lockfile, @opentelemetry/api)", () => {
  it("calls a tool, and observing reports how to get proper-lockfile instead of recording", async () => {
    // A project with the runtime's files and its dependencies, and neither optional peer anywhere above it.
    const project = await mkdtemp(join(tmpdir(), "pmcp-runtime-alone-"));
    const modules = join(project, "node_modules");
    await cp(join(ROOT, "packages/runtime/package.json"), join(modules, "@pmcp-codegen/runtime/package.json"));
    await cp(RUNTIME_DIST, join(modules, "@pmcp-codegen/runtime/dist"), { recursive: true });
    await mkdir(join(modules, "@modelcontextprotocol"), { recursive: true });
    const manifest = JSON.parse(await readFile(join(ROOT, "packages/runtime/package.json"), "utf8")) as { dependencies: object };
    for (const name of Object.keys(manifest.dependencies)) await symlink(join(ROOT, "node_modules", name), join(modules, name), "dir");
    await writeFile(
      join(project, "observe.mjs"),
      `import { CompositionClient, ObservationRecorder, z } from "@pmcp-codegen/runtime";
const client = new CompositionClient({ servers: { inv: { command: process.execPath, args: [${JSON.stringify(join(ROOT, "test/fixtures/v2-server.mjs"))}] } } });
const count = await client.callTool({ server: "inv", tool: "count", parse: z.number(), nonObject: true });
await client.close();
const errors = [count];
const recorder = new ObservationRecorder({ dir: "observations", onError: (error) => errors.push(error.message) });
recorder.record("shop", "list", { n: 1 });
await recorder.flush();
console.log(JSON.stringify(errors));`,
    );
    const result = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
      execFile(process.execPath, ["observe.mjs"], { cwd: project }, (_error, stdout, stderr) => resolve({ stdout, stderr }));
    });
    expect(result.stderr).toBe("");
    expect(JSON.parse(result.stdout)).toEqual([
      7,
      "observations of shop/list not recorded: observing needs the optional peer dependency proper-lockfile: npm install proper-lockfile",
    ]);
  });
});
