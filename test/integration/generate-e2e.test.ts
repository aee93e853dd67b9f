import { execFile } from "node:child_process";
import { appendFile, cp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  AbortError,
  CompositionClient,
  CompositionError,
  ConnectionError,
  InvalidResponseError,
  OutputValidationError,
  ServerNotFoundError,
  TimeoutError,
  ToolCallError,
  TransportError,
} from "@pmcp-codegen/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBehaviourServer } from "../fixtures/behaviour-server.mjs";
import { FIXTURES, fixtureCommand, ROOT, runCli, runInProcess } from "../helpers/cli.js";
import { type HttpFixture, serveHttp } from "../helpers/http-server.js";
import { COMPILE_BUDGET_MS, outputDir, typecheck } from "../helpers/typescript.js";

let dir: string;
let http: HttpFixture;
let upstream: CompositionClient;
/** The generated module, imported at run time (its static types are checked by the tsc test). */
interface GeneratedModule {
  BehaveClient: new (
    client: CompositionClient,
    serverId?: string,
    // biome-ignore lint/suspicious/noExplicitAny: the generated class is loaded at run time; its methods are checked by tsc in another test
  ) => any;
}
let generated: GeneratedModule;

beforeAll(async () => {
  dir = await outputDir("behaviour");
  http = await serveHttp(createBehaviourServer, { transport: "streamable-http" });
  const bundle = join(dir, "bundle.json");
  const exported = await runCli(["schema", "export", "--stdio", fixtureCommand("behaviour-server.mjs"), "--id", "behave", "-o", bundle]);
  expect(exported.code, exported.stderr).toBe(0);
  const result = await runCli(["generate", "--schema", bundle, "-o", join(dir, "lenient")]);
  expect(result.code, result.stderr).toBe(0);
  const strict = await runInProcess(["generate", "--schema", bundle, "-o", join(dir, "strict"), "--strict-objects"]);
  expect(strict.code, strict.stderr).toBe(0);
  generated = await import(join(dir, "lenient/index.ts"));
  upstream = new CompositionClient({
    servers: {
      behave: {
        command: process.execPath,
        args: [join(FIXTURES, "behaviour-server.mjs")],
        env: { CRASH_MARKER: join(dir, "crash-marker") },
      },
      "behave-http": { url: http.url },
      broken: { command: "no-such-server-binary" },
    },
    timeoutMs: 10_000,
  });
});

afterAll(async () => {
  await upstream?.close();
  await http?.close();
});

describe("generated clients", () => {
  it(
    "compile under tsc --strict with nodenext and with bundler resolution",
    async () => {
      const files = ["lenient/index.ts", "strict/index.ts"].map((file) => join(dir, file));
      const usage = join(dir, "usage.ts");
      // What a domain server writes: typed arguments and typed result fields.
      await writeFile(
        usage,
        [
          'import { CompositionClient } from "@pmcp-codegen/runtime";',
          'import { BehaveClient, behave as behaveTypes } from "./lenient/index.js";',
          'import type { Item } from "./lenient/behave.js";',
          "export async function use(client: CompositionClient): Promise<number> {",
          "  const behave = new BehaveClient(client);",
          '  const item: Item = await behave.getItem({ id: "a" });',
          "  const tags: string[] | undefined = item.tags;",
          "  const pid: behaveTypes.PidResult = await behave.pid();",
          "  // @ts-expect-error a required argument is missing",
          "  await behave.getItem({});",
          "  return item.count + pid.pid + (tags?.length ?? 0);",
          "}",
        ].join("\n"),
      );
      expect(await typecheck(dir, [...files, usage], "nodenext")).toBe("");
      expect(await typecheck(dir, [...files, usage], "bundler")).toBe("");
    },
    COMPILE_BUDGET_MS,
  );

  it("return typed, validated results from structuredContent or JSON text", async () => {
    const behave = new generated.BehaveClient(upstream);
    expect(await behave.getItem({ id: "a" })).toEqual({ id: "a", count: 3, tags: ["a"] });
    expect(await behave.textItem()).toEqual({ id: "t", count: 1 });
    const overHttp = new generated.BehaveClient(upstream, "behave-http");
    expect(await overHttp.getItem({ id: "h" })).toEqual({ id: "h", count: 3, tags: ["a"] });
  });

  it("share one connection between concurrent calls", async () => {
    const behave = new generated.BehaveClient(upstream);
    const pids = await Promise.all(Array.from({ length: 5 }, () => behave.pid()));
    expect(new Set(pids.map((result) => result.pid)).size).toBe(1);
  });

  it("keep unknown keys by default and reject them with --strict-objects", async () => {
    const lenient = new generated.BehaveClient(upstream);
    expect(await lenient.extraFields()).toEqual({ id: "e", count: 2, added: "new in v2" });
    const strictModule: GeneratedModule = await import(join(dir, "strict/index.ts"));
    const strict = new strictModule.BehaveClient(upstream);
    await expect(strict.extraFields()).rejects.toBeInstanceOf(OutputValidationError);
  });
});

describe("every error class, triggered for real", () => {
  async function failure(call: () => Promise<unknown>): Promise<CompositionError> {
    const error = await call().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(CompositionError);
    return error as CompositionError;
  }

  it("ToolCallError carries the tool's error text", async () => {
    const error = await failure(() => new generated.BehaveClient(upstream).fail());
    expect(error).toBeInstanceOf(ToolCallError);
    expect(error).toMatchObject({ serverId: "behave", toolName: "fail", text: "warehouse offline", code: "TOOL_CALL_FAILED" });
  });

  it("OutputValidationError carries the issues with JSON paths and the raw value", async () => {
    const error = await failure(() => new generated.BehaveClient(upstream).badOutput());
    expect(error).toBeInstanceOf(OutputValidationError);
    const validation = error as OutputValidationError;
    expect(validation.issues[0]?.path).toEqual(["count"]);
    expect(validation.raw).toEqual({ id: "x", count: -1 });
    expect(validation.message).toMatch(/at count/);
  });

  it("InvalidResponseError when the text is not JSON", async () => {
    const error = await failure(() => new generated.BehaveClient(upstream).notJson());
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.message).toMatch(/not JSON: "all good!"/);
  });

  it("TimeoutError after the per-call timeout, and an AbortSignal cancels", async () => {
    const behave = new generated.BehaveClient(upstream);
    const error = await failure(() => behave.slow({ ms: 3000 }, { timeoutMs: 200 }));
    expect(error).toBeInstanceOf(TimeoutError);
    const controller = new AbortController();
    const pending = behave.slow({ ms: 3000 }, { signal: controller.signal });
    controller.abort(new Error("caller gave up"));
    const aborted = await failure(() => pending);
    expect(aborted).toBeInstanceOf(AbortError);
    expect((aborted.cause as Error).message).toBe("caller gave up");
  });

  it("TransportError when the server dies mid-call; the next call reconnects", async () => {
    const behave = new generated.BehaveClient(upstream);
    const before = (await behave.pid()).pid;
    const error = await failure(() => behave.crash());
    expect(error).toBeInstanceOf(TransportError);
    const after = (await behave.pid()).pid;
    expect(after).not.toBe(before);
  });

  it("a read-only, idempotent tool is retried once on a new connection after a transport failure", async () => {
    const behave = new generated.BehaveClient(upstream);
    const before = (await behave.pid()).pid;
    const result = await behave.flakyRead();
    expect(result.pid).not.toBe(before);
    expect(await readFile(join(dir, "crash-marker"), "utf8")).toBe("crashed once");
    const once = new CompositionClient({
      servers: {
        behave: { command: process.execPath, args: [join(FIXTURES, "behaviour-server.mjs")], env: { CRASH_MARKER: join(dir, "marker-2") } },
      },
      retries: 0,
    });
    try {
      await expect(new generated.BehaveClient(once).flakyRead()).rejects.toBeInstanceOf(TransportError);
    } finally {
      await once.close();
    }
  });

  it("ServerNotFoundError and ConnectionError", async () => {
    const missing = await failure(() => new generated.BehaveClient(upstream, "nowhere").getItem({ id: "a" }));
    expect(missing).toBeInstanceOf(ServerNotFoundError);
    expect(missing.serverId).toBe("nowhere");
    const broken = await failure(() => new generated.BehaveClient(upstream, "broken").getItem({ id: "a" }));
    expect(broken).toBeInstanceOf(ConnectionError);
    expect(broken.message).toMatch(/broken\/get_item: cannot start "no-such-server-binary"/);
  });
});

// The runs below are in this process: their claims are the files and lines each run writes.
describe("pmcp generate", () => {
  it("--check passes on fresh output, fails on a stale file, and leaves it alone", async () => {
    const bundle = join(dir, "bundle.json");
    const out = join(dir, "lenient");
    expect((await runInProcess(["generate", "--schema", bundle, "-o", out, "--check"])).code).toBe(0);
    const path = join(out, "behave.ts");
    const edited = `${await readFile(path, "utf8")}\n// hand edit\n`;
    await writeFile(path, edited);
    const stale = await runInProcess(["generate", "--schema", bundle, "-o", out, "--check"]);
    expect(stale.code).toBe(1);
    expect(stale.stdout).toMatch(/stale: .*behave\.ts/);
    expect(await readFile(path, "utf8")).toBe(edited);
    const fixed = await runInProcess(["generate", "--schema", bundle, "-o", out, "--json"]);
    expect(JSON.parse(fixed.stdout).changed).toEqual([path]);
    expect((await runInProcess(["generate", "--schema", bundle, "-o", out, "--check"])).code).toBe(0);
  });

  it("reuses unchanged modules by content hash and removes modules of servers that left the bundle", async () => {
    const out = await outputDir("reuse");
    const bundle = join(dir, "bundle.json");
    await writeFile(join(out, "gone.ts"), "// Generated by pmcp-codegen 0.0.1 from x. Do not edit: run pmcp generate.\n");
    await writeFile(join(out, "mine.ts"), "export const handWritten = 1;\n");
    const first = JSON.parse((await runInProcess(["generate", "--schema", bundle, "-o", out, "--json"])).stdout);
    expect(first.reused).toEqual([]);
    expect(first.removed).toEqual([join(out, "gone.ts")]);
    const second = JSON.parse((await runInProcess(["generate", "--schema", bundle, "-o", out, "--json"])).stdout);
    expect(second).toMatchObject({ reused: ["behave"], changed: [] });
    expect(await readFile(join(out, "mine.ts"), "utf8")).toBe("export const handWritten = 1;\n");
  });
  it("a comment-only change to the generator leaves generate --check green and re-renders the same bytes", async () => {
    // A build of pmcp-codegen that differs from ours only by comments, inside the repo so its imports resolve.
    const copy = await outputDir("generator-copy");
    await cp(join(ROOT, "dist"), join(copy, "dist"), { recursive: true });
    await cp(join(ROOT, "templates"), join(copy, "templates"), { recursive: true });
    await cp(join(ROOT, "package.json"), join(copy, "package.json"));
    for (const module of ["codegen/plan.js", "codegen/emit-parser.js", "ir/json-schema-to-ir.js"]) {
      await appendFile(join(copy, "dist", module), "\n// a comment-only change to the generator\n");
    }
    const edited = async (args: string[]) =>
      (await promisify(execFile)(process.execPath, [join(copy, "dist/cli/main.js"), ...args], { cwd: ROOT })).stdout;
    // The copy of dist/ is large: it goes as soon as the test is over, passed or not.
    try {
      expect(await edited(["generate", "--check"])).toBe("generated is up to date\n");

      const out = await outputDir("generator-reuse");
      const bundle = join(dir, "bundle.json");
      const ours = async () => JSON.parse((await runInProcess(["generate", "--schema", bundle, "-o", out, "--json"])).stdout);
      const theirs = async () => JSON.parse(await edited(["generate", "--schema", bundle, "-o", out, "--json"]));
      expect(await ours()).toMatchObject({ reused: [], changed: [join(out, "behave.ts"), join(out, "index.ts")] });
      expect(await ours()).toMatchObject({ reused: ["behave"], changed: [] });
      // Another build never trusts what this one made, and makes the same bytes; then it reuses its own.
      expect(await theirs()).toMatchObject({ reused: [], changed: [] });
      expect(await theirs()).toMatchObject({ reused: ["behave"], changed: [] });
    } finally {
      await rm(copy, { recursive: true, force: true });
    }
  });
});
