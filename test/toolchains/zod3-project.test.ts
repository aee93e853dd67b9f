import { execFile } from "node:child_process";
import { cp, mkdir, readFile, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { FIXTURES, fixtureCommand, ROOT, runCli } from "../helpers/cli.js";
import { outputDir } from "../helpers/typescript.js";

const run = promisify(execFile);
let project: string;

/**
 * An application whose own zod is 3 (npm hoists it when another dependency wants zod 3, as
 * @kazuph/mcp-taskmanager does): the runtime is installed with its zod 4 nested below it.
 */
beforeAll(async () => {
  project = await outputDir("zod3-project");
  const modules = join(project, "node_modules");
  const runtime = join(modules, "@pmcp-codegen/runtime");
  await cp(join(ROOT, "packages/runtime/package.json"), join(runtime, "package.json"));
  await cp(join(ROOT, "packages/runtime/dist"), join(runtime, "dist"), { recursive: true });
  await mkdir(join(runtime, "node_modules"), { recursive: true });
  await symlink(join(ROOT, "node_modules/zod"), join(runtime, "node_modules/zod"), "dir");
  await symlink(join(ROOT, "node_modules/zod-v3"), join(modules, "zod"), "dir");
  for (const name of ["@modelcontextprotocol/client", "@opentelemetry/api", "@types/node"]) {
    await mkdir(join(modules, name, ".."), { recursive: true });
    await symlink(join(ROOT, "node_modules", name), join(modules, name), "dir");
  }
  await writeFile(join(project, "package.json"), '{ "type": "module" }\n');
  const bundle = join(project, "bundle.json");
  const exported = await runCli(["schema", "export", "--stdio", fixtureCommand("v2-server.mjs", "modern"), "--id", "inv", "-o", bundle]);
  expect(exported.code, exported.stderr).toBe(0);
  const generated = await runCli(["generate", "--schema", bundle, "-o", join(project, "clients")]);
  expect(generated.code, generated.stderr).toBe(0);
});

describe("generated clients in a project whose top-level zod is 3", () => {
  it("compile under tsc --strict and run with the runtime's zod 4, beside the application's zod 3", async () => {
    expect(JSON.parse(await readFile(join(project, "node_modules/zod/package.json"), "utf8")).version).toMatch(/^3\./);
    await writeFile(
      join(project, "app.ts"),
      [
        'import { z } from "zod";',
        'import { CompositionClient } from "@pmcp-codegen/runtime";',
        'import { InvClient, inv } from "./clients/index.js";',
        "",
        "// The application's own schemas, in zod 3.",
        "const Order = z.object({ sku: z.string(), count: z.number() });",
        "const client = new CompositionClient({",
        `  servers: { inv: { command: process.execPath, args: [${JSON.stringify(join(FIXTURES, "v2-server.mjs"))}, "modern"] } },`,
        "});",
        "try {",
        "  const clients = new InvClient(client);",
        "  const count: number = await clients.count();",
        '  const stock = await clients.getStock({ sku: "abc" });',
        '  const raw = await client.callToolForResult({ server: "inv", tool: "get_stock", args: { sku: "abcd" } });',
        "  const parsed = raw.json(inv.GetStockResultSchema);",
        "  const order = Order.parse({ sku: stock.sku, count });",
        '  console.log(JSON.stringify([order, parsed.quantity, "looseObject" in z]));',
        "} finally {",
        "  await client.close();",
        "}",
      ].join("\n"),
    );
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    const options = ["--strict", "--exactOptionalPropertyTypes", "--noUncheckedIndexedAccess", "--skipLibCheck"];
    const compiled = await run(
      process.execPath,
      [tsc, ...options, "--module", "nodenext", "--target", "es2022", "--types", "node", "--outDir", "out", "app.ts"],
      { cwd: project },
    ).then(
      (result) => result.stdout,
      (error: { stdout: string }) => error.stdout,
    );
    expect(compiled).toBe("");
    const { stdout } = await run(process.execPath, [join(project, "out/app.js")], { cwd: project });
    expect(JSON.parse(stdout)).toEqual([{ sku: "abc", count: 7 }, 4, false]);
  });
});
