import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { parse } from "shell-quote";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { FIXTURES, ROOT } from "../helpers/cli.js";
import { full } from "../helpers/full-run.js";
import { npmInstall, packTarballs, pinnedToCheckout, type Tarballs } from "../helpers/packed.js";
import { type CodeBlock, codeBlocks, DOC_PAGES, section } from "../helpers/readme.js";

/**
 * "A new project" of docs/getting-started.md, followed from an empty folder outside the checkout (so that nothing
 * resolves from the checkout's node_modules): its commands, with the tarballs packed from this build and
 * each package pinned to the version the checkout installed (the install then comes from the local npm
 * cache), its tsconfig.json, and its domain server. One install serves every case here: the flow, every
 * TypeScript block of README.md, packages/runtime/README.md and docs/, and both packages' published declarations,
 * all compiled by the project's own tsc with the page's settings (`strict`; the packages' declarations checked as with `skipLibCheck` off).
 */

const exec = promisify(execFile);
const gettingStarted = await readFile(join(ROOT, "docs/getting-started.md"), "utf8");
const steps = codeBlocks(section(gettingStarted, "## A new project"));
const [setup, flow] = steps.filter((block) => block.info === "sh");
const tsconfig = steps.find((block) => block.info === "json");
const domainServer = steps.find((block) => block.info === "ts");

let work: string;
let project: string;
let tarballs: Tarballs;

/** The words of each command of a shell block, comments left out, `a && b` as two commands. */
function commandsOf(block: CodeBlock | undefined): string[][] {
  const commands: string[][] = [];
  for (const line of (block?.code ?? "").split("\n")) {
    let words: string[] = [];
    for (const entry of parse(line)) {
      if (typeof entry === "string") words.push(entry);
      else if ("op" in entry && entry.op === "&&") {
        commands.push(words);
        words = [];
      } else if ("comment" in entry) break;
    }
    if (words.length > 0) commands.push(words);
  }
  return commands;
}

/** Runs one command of the page in the project; `npm i` from the packed tarballs and the local npm cache. */
async function runStep([command, ...args]: string[]): Promise<{ stdout: string; stderr: string }> {
  if (command === "npm" && (args[0] === "i" || args[0] === "install")) {
    const specs = args.slice(1).map((arg) => {
      if (arg.startsWith("-")) return arg;
      if (arg.startsWith("/path/to/")) {
        const tarball = arg === "/path/to/pmcp-codegen-0.1.0.tgz" ? tarballs.codegen : tarballs.runtime;
        expect(arg.slice("/path/to/".length)).toBe(relative(work, tarball));
        return tarball;
      }
      return pinnedToCheckout(arg);
    });
    await npmInstall(project, specs);
    return { stdout: "", stderr: "" };
  }
  // A failing step's message carries both streams (tsc writes its diagnostics to stdout).
  return exec(command!, args, { cwd: project, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 }).catch(
    (error: { stdout: string; stderr: string }) => {
      throw new Error(`${[command, ...args].join(" ")} failed:\n${error.stdout}${error.stderr}`);
    },
  );
}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "pmcp-new-project-"));
  tarballs = await packTarballs(work);
  project = join(work, "project");
  await mkdir(project);
  expect(commandsOf(setup)[0]).toEqual(["npm", "init", "-y"]);
  for (const command of commandsOf(setup)) await runStep(command);
  await writeFile(join(project, "tsconfig.json"), tsconfig?.code ?? "");
}, 900_000);

afterAll(async () => {
  if (work !== undefined) await rm(work, { recursive: true, force: true });
});

describe("getting started's new project, from an empty folder", () => {
  it("exports a server that prints a banner, generates its client, compiles the domain server with tsc --strict and runs it", async () => {
    // The page's upstream.js: a real server that prints `Starting Banner MCP server...` before any message.
    await copyFile(join(FIXTURES, "banner-server.mjs"), join(project, "upstream.js"));
    const [, file] = /^\/\/ (\S+\.ts):/.exec(domainServer?.code ?? "") ?? [];
    expect(file).toBe("server.ts");
    await writeFile(join(project, file!), domainServer!.code);
    const commands = commandsOf(flow);
    const start = commands.at(-1)!;
    expect(start).toEqual(["node", "dist/server.js"]);
    const outputs: string[] = [];
    for (const command of commands.slice(0, -1)) {
      const { stdout, stderr } = await runStep(command);
      outputs.push(stdout + stderr);
    }
    expect(outputs.join("")).toContain("Starting Banner MCP server...");
    expect((await readdir(join(project, "generated"))).sort()).toEqual(["index.ts", "inventory.ts"]);
    // A project that checks its libraries too: zod's, the SDK's and Node's declarations, with the generated
    // client and both packages'. Thirty CPU-seconds more, so in a full run only.
    if (full) {
      const tsc = join(project, "node_modules/typescript/bin/tsc");
      await expect(
        exec(process.execPath, [tsc, "-p", "tsconfig.json", "--noEmit", "--skipLibCheck", "false", "--pretty", "false"], {
          cwd: project,
          maxBuffer: 64 * 1024 * 1024,
        }).then(({ stdout }) => stdout),
      ).resolves.toBe("");
    }

    const client = new Client({ name: "new-project-test", version: "1.0.0" });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: start.slice(1), cwd: project, stderr: "pipe" }));
    try {
      const answers = [];
      for (const below of [10, 3]) {
        answers.push(await client.callTool({ name: "needs_restock", arguments: { sku: "SKU-1", below } }));
      }
      // The upstream's quantity of SKU-1 is 5 (its length): below 10, not below 3.
      expect(answers.map((answer) => answer.content)).toEqual([[{ type: "text", text: "true" }], [{ type: "text", text: "false" }]]);
    } finally {
      await client.close();
    }
    // Bounded work (two commands, a compile, two calls), long only on a loaded machine.
  }, 600_000);
});

/** Every fenced block of the docs' pages (DOC_PAGES), each with a file name of its own: the page's path and the block's line. */
const BLOCKS = (
  await Promise.all(
    DOC_PAGES.map(async (page) =>
      codeBlocks(await readFile(join(ROOT, page), "utf8")).map((block) => ({
        ...block,
        file: `${page.replace(/\.md$/, "").replace(/[^a-zA-Z0-9]+/g, "-")}-${block.line}.ts`,
      })),
    ),
  )
).flat();
/** Every `ts` block of them, and a module importing every entry of both packages, compiled in one program. */
let compiled: Promise<{ byFile: Record<string, string[]>; declarations: string[] }> | undefined;
const SNIPPETS = BLOCKS.filter((block) => block.info === "ts");
const ENTRY_POINTS = "entry-points.ts";
/** Where the packages' declaration files are copied to, as .ts files. */
const DECLARATIONS = "declarations";

function compileSnippets(): Promise<{ byFile: Record<string, string[]>; declarations: string[] }> {
  compiled ??= (async () => {
    // The model bridge's row of getting started's table: the providers' SDKs its blocks use.
    await npmInstall(project, [pinnedToCheckout("openai"), pinnedToCheckout("@google/genai")]);
    // A folder beside the project, sharing its packages, so that the project's own `tsc` never sees these files.
    const dir = join(work, "snippets");
    await mkdir(dir);
    await symlink(join(project, "node_modules"), join(dir, "node_modules"), "dir");
    await writeFile(join(dir, "package.json"), '{ "type": "module" }\n');
    // The servers the blocks name: the examples' inventory and server-everything.
    const reference = JSON.parse(await readFile(inject("referenceBundle"), "utf8")) as { version: string; servers: { id: string }[] };
    const examples = JSON.parse(await readFile(join(ROOT, "schemas/mcp-bundle.json"), "utf8")) as typeof reference;
    const servers = [
      ...examples.servers.filter((server) => server.id === "inventory"),
      ...reference.servers.filter((server) => server.id === "mcp-servers-everything"),
    ];
    expect(servers.map((server) => server.id)).toEqual(["inventory", "mcp-servers-everything"]);
    await writeFile(join(dir, "bundle.json"), JSON.stringify({ version: reference.version, servers }));
    const pmcp = join(project, "node_modules/pmcp-codegen/dist/bin/pmcp.js");
    await exec(process.execPath, [pmcp, "generate", "--schema", "bundle.json", "-o", "generated", "--quiet"], { cwd: dir });
    // The module registerFunctions' block serves, from the package's own examples.
    await copyFile(join(project, "node_modules/pmcp-codegen/examples/tools/catalog.ts"), join(dir, "catalog.ts"));
    for (const snippet of SNIPPETS) await writeFile(join(dir, snippet.file), snippet.code);
    await writeFile(
      join(dir, ENTRY_POINTS),
      [
        'import type { Bundle } from "pmcp-codegen";',
        'import * as codegen from "pmcp-codegen";',
        'import * as config from "pmcp-codegen/config";',
        'import * as model from "pmcp-codegen/model";',
        'import * as runtimeEntry from "@pmcp-codegen/runtime";',
        'import * as server from "pmcp-codegen/server";',
        'import * as runtime from "@pmcp-codegen/runtime";',
        "export type Read = Bundle;",
        "export const entries = [codegen, config, model, runtimeEntry, server, runtime];",
        "",
      ].join("\n"),
    );
    // Every declaration file of both packages, not only those the entries reach, checked as skipLibCheck off would
    // check them: as copies named .ts (or .cts), which skipLibCheck does not skip, while the libraries they use are skipped
    // (checking zod's, the SDK's and the providers' declarations is theirs to do, and took most of this compile).
    const declarations: string[] = [];
    for (const installed of ["pmcp-codegen", "@pmcp-codegen/runtime"]) {
      const dist = join(project, "node_modules", installed, "dist");
      for (const entry of await readdir(dist, { recursive: true, withFileTypes: true })) {
        if (!entry.isFile() || !/\.d\.[cm]?ts$/.test(entry.name)) continue;
        const copy = join(dir, DECLARATIONS, installed, relative(dist, entry.parentPath), entry.name.replace(/\.d\.([cm]?ts)$/, ".$1"));
        await mkdir(dirname(copy), { recursive: true });
        await copyFile(join(entry.parentPath, entry.name), copy);
        declarations.push(relative(dir, copy));
      }
    }
    const base = JSON.parse(tsconfig?.code ?? "{}") as { compilerOptions: Record<string, unknown> };
    await writeFile(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { ...base.compilerOptions, noEmit: true },
        files: [ENTRY_POINTS, "catalog.ts", ...SNIPPETS.map((snippet) => snippet.file), ...declarations],
      }),
    );
    const tsc = join(project, "node_modules/typescript/bin/tsc");
    const output = await exec(process.execPath, [tsc, "-p", "tsconfig.json", "--pretty", "false"], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
    }).then(
      (result) => result.stdout,
      (error: { stdout: string }) => error.stdout,
    );
    // Each diagnostic starts a line (`file(line,col): error TS…`); its details are indented.
    const byFile: Record<string, string[]> = {};
    for (const diagnostic of output.trim() === "" ? [] : output.trim().split(/\n(?=\S)/)) {
      const file = /^(.+?)\(\d+,\d+\): /.exec(diagnostic)?.[1] ?? "(no file)";
      byFile[file] = [...(byFile[file] ?? []), diagnostic];
    }
    return { byFile, declarations };
  })();
  return compiled;
}

describe("what the docs show, in that project", () => {
  it("every TypeScript block of README.md, packages/runtime/README.md and docs/ compiles with getting started's tsconfig", async () => {
    expect(SNIPPETS.length).toBeGreaterThan(10);
    // The one block that is not a module says so in its info string: a code-mode program.
    expect(BLOCKS.filter((block) => block.info.startsWith("ts ")).map((block) => block.info)).toEqual(["ts fragment"]);
    const { byFile } = await compileSnippets();
    const published = (file: string) => file.startsWith(`${DECLARATIONS}/`) || file === ENTRY_POINTS;
    expect(Object.fromEntries(Object.entries(byFile).filter(([file]) => !published(file)))).toEqual({});
    // One install, one generate and one compile, shared with the next case.
  }, 900_000);

  it("every published .d.ts of both packages, and each of their entries, compiles under strict, checked as with skipLibCheck off", async () => {
    const { byFile, declarations } = await compileSnippets();
    expect(
      Object.fromEntries(Object.entries(byFile).filter(([file]) => file.startsWith(`${DECLARATIONS}/`) || file === ENTRY_POINTS)),
    ).toEqual({});
    // Both packages' declarations, each of them: the entries' own and the runtime's among them.
    expect(declarations).toEqual(
      expect.arrayContaining(["declarations/pmcp-codegen/index.ts", "declarations/@pmcp-codegen/runtime/index.ts"]),
    );
    expect(declarations.length).toBeGreaterThan(100);
  }, 900_000);
});
