import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { CompositionClient, type CompositionError } from "@pmcp-codegen/runtime";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bundle } from "../../dist/bundle/types.js";
import { planServerModule } from "../../dist/codegen/plan.js";
import { buildDeclarations } from "../../dist/exec/declarations.js";
import { ExecSession } from "../../dist/exec/exec-session.js";
import { DEFAULT_LIMITS } from "../../dist/exec/limits.js";
import { QuickJsExecutor } from "../../dist/exec/quickjs-executor.js";
import { compileSchema } from "../../src/json-schema/validator.js";
import { FIXTURES, ROOT, runCli, runInProcess } from "../helpers/cli.js";
import { samples } from "../helpers/samples.js";
import { outputDir } from "../helpers/typescript.js";

/** One call: a tool and its arguments. */
interface Case {
  server: string;
  tool: string;
  args: Record<string, unknown>;
}

/** How a call ended, as a program sees it: the value's JSON, or the error's code. */
type Verdict = { ok: unknown } | { code: string };

let dir: string;
let bundle: Bundle;
let declarations: ReturnType<typeof buildDeclarations> | undefined;
let upstream: CompositionClient;
let executor: QuickJsExecutor;
const OWN_BUNDLE = join(ROOT, "schemas/mcp-bundle.json");

beforeAll(async () => {
  dir = await outputDir("result-agreement");
  const node = process.execPath;
  const config = join(dir, "mcp.json");
  await writeFile(
    config,
    JSON.stringify({
      mcpServers: {
        behave: { command: node, args: [join(FIXTURES, "behaviour-server.mjs")] },
        proto: { command: node, args: [join(FIXTURES, "proto-server.mjs")] },
        // The repo's own bundle, whose tools close their objects with additionalProperties: false.
        inventory: { command: node, args: [join(FIXTURES, "echo-result-server.mjs"), OWN_BUNDLE, "inventory"] },
        memory: { command: node, args: [join(FIXTURES, "echo-result-server.mjs"), OWN_BUNDLE, "memory"] },
      },
    }),
  );
  const exported = await runCli(["schema", "export", "--config", config, "-o", join(dir, "bundle.json"), "--quiet"]);
  expect(exported.code, exported.stderr).toBe(0);
  bundle = JSON.parse(await readFile(join(dir, "bundle.json"), "utf8")) as Bundle;
  // The strict one in this process: a second process would show nothing the first does not.
  for (const [strict, run] of [
    [false, runCli],
    [true, runInProcess],
  ] as const) {
    const generated = await run([
      "generate",
      "--schema",
      join(dir, "bundle.json"),
      "-o",
      join(dir, String(strict)),
      ...(strict ? ["--strict-objects"] : []),
    ]);
    expect(generated.code, generated.stderr).toBe(0);
  }
  upstream = await CompositionClient.fromConfigFile(config, { timeoutMs: 20_000 });
  executor = new QuickJsExecutor({ workers: 1 });
}, 180_000);

afterAll(async () => {
  for (const session of sessions.values()) await (await session).close();
  await executor?.close();
  await upstream?.close();
});

let sampled: Case[] | undefined;

/** The fixtures' answers, and for each tool of the repo's bundle samples of its schema, one valid sample with a key added. */
function cases(): Case[] {
  sampled ??= sampleCases();
  return sampled;
}

function sampleCases(): Case[] {
  const list: Case[] = [
    { server: "behave", tool: "extra_fields", args: {} },
    { server: "behave", tool: "get_item", args: { id: "a" } },
    { server: "behave", tool: "bad_output", args: {} },
    ...["right", "missing", "wrong"].map((answer) => ({ server: "proto", tool: "get_record", args: { answer } })),
    ...["bare", "own", "wrong"].map((answer) => ({ server: "proto", tool: "get_named", args: { answer } })),
  ];
  for (const server of bundle.servers.filter((entry) => entry.id === "inventory" || entry.id === "memory")) {
    for (const tool of server.tools) {
      const answers = fc.sample(samples(tool.outputSchema), { numRuns: 400, seed: 20261126 });
      const valid = answers.find((answer) => compileSchema(tool.outputSchema)(answer) && isObject(answer));
      expect(valid, `${server.id}/${tool.name}: no valid sample`).toBeDefined();
      for (const answer of [...answers.slice(0, 4), valid, { ...(valid as object), addedInV2: true }])
        list.push({ server: server.id, tool: tool.name, args: { answer } });
    }
  }
  return list;
}

function isObject(value: unknown): value is object {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The global and method a call goes through, as both the generated index and the sandbox name them. */
function binding(call: Case): { global: string; method: string; className: string } {
  declarations ??= buildDeclarations(bundle);
  const server = declarations.servers.find((entry) => entry.serverId === call.server)!;
  const { className } = planServerModule(bundle.servers.find((entry) => entry.id === call.server)!, {
    strictObjects: false,
    minQuality: "low",
  });
  return { global: server.global, method: server.tools.find((tool) => tool.toolName === call.tool)!.method, className };
}

/** Each case through the generated client of `pmcp generate` (`--strict-objects` when strict). */
async function throughGenerated(list: Case[], strict: boolean): Promise<Verdict[]> {
  const module = (await import(join(dir, String(strict), "index.ts"))) as Record<string, new (client: CompositionClient) => object>;
  const verdicts: Verdict[] = [];
  for (const call of list) {
    const { className, method } = binding(call);
    const client = new module[className]!(upstream) as Record<string, (args: unknown) => Promise<unknown>>;
    try {
      verdicts.push({ ok: JSON.parse(JSON.stringify(await client[method]!(call.args))) });
    } catch (error) {
      verdicts.push({ code: (error as CompositionError).code });
    }
  }
  return verdicts;
}

/** One session over the fixtures for each strictness, closed after all: each starts a type-checker. */
const sessions = new Map<boolean, Promise<ExecSession>>();

/** What a program returns, run in a session over the fixtures (`strict`: as `--strict-objects`). */
async function execute(code: string, strict: boolean): Promise<unknown> {
  if (!sessions.has(strict)) {
    sessions.set(
      strict,
      ExecSession.create({
        bundle,
        client: upstream,
        executor,
        limits: { ...DEFAULT_LIMITS, maxCalls: 1000, maxOutputBytes: 10_000_000 },
        minQuality: "low",
        strictObjects: strict,
      }),
    );
  }
  const outcome = await (await sessions.get(strict)!).execute(code);
  if (!outcome.ok) throw new Error(`${outcome.kind}: ${outcome.message}`);
  return outcome.result;
}

/** The same cases in one program through execute_program, with the same strictness. */
async function throughExecuteProgram(list: Case[], strict: boolean): Promise<Verdict[]> {
  const calls = list.map((call) => {
    const { global, method } = binding(call);
    // Arguments through JSON.parse: in an object literal a "__proto__" key would set the prototype.
    return `await run(() => ${global}.${method}(JSON.parse(${JSON.stringify(JSON.stringify(call.args))})));`;
  });
  const code = [
    "const verdicts: unknown[] = [];",
    "async function run(call: () => Promise<unknown>) {",
    "  try { verdicts.push({ ok: await call() }); } catch (e) { verdicts.push({ code: (e as rt.CallError).code }); }",
    "}",
    ...calls,
    "return verdicts;",
  ].join("\n");
  return (await execute(code, strict)) as Verdict[];
}

describe("code mode and generated clients", () => {
  it.each([
    ["lenient", false],
    ["strict", true],
  ])(
    "pass and fail the same results with the same values (%s objects)",
    async (_name, strict) => {
      const list = cases();
      const generated = await throughGenerated(list, strict);
      expect(await throughExecuteProgram(list, strict)).toEqual(generated);
      const verdict = (server: string, tool: string, answer?: string) =>
        generated[list.findIndex((call) => call.server === server && call.tool === tool && call.args.answer === answer)];
      expect(verdict("behave", "extra_fields")).toEqual(
        strict ? { code: "OUTPUT_VALIDATION" } : { ok: { id: "e", count: 2, added: "new in v2" } },
      );
      expect(verdict("behave", "bad_output")).toEqual({ code: "OUTPUT_VALIDATION" });
      expect(["right", "missing", "wrong"].map((answer) => verdict("proto", "get_record", answer))).toEqual([
        { ok: JSON.parse('{"name":"a","__proto__":"kept"}') },
        { code: "OUTPUT_VALIDATION" },
        { code: "OUTPUT_VALIDATION" },
      ]);
      // Properties are read as own: the inherited constructor and toString are not the result's.
      expect(["bare", "own", "wrong"].map((answer) => verdict("proto", "get_named", answer))).toEqual([
        { ok: JSON.parse('{"name":"a"}') },
        { ok: JSON.parse('{"name":"a","constructor":"c","toString":"t"}') },
        { code: "OUTPUT_VALIDATION" },
      ]);
      // A server adding a field to a closed object (each of the 11 tools of the repo's bundle) breaks no program unless strict.
      const added = list.flatMap((call, index) =>
        isObject(call.args.answer) && "addedInV2" in call.args.answer ? [generated[index]!] : [],
      );
      expect(added.map((result) => ("ok" in result ? "ok" : result.code))).toEqual(
        Array.from({ length: 11 }, () => (strict ? "OUTPUT_VALIDATION" : "ok")),
      );
    },
    120_000,
  );

  it("give a program a declared __proto__ property as the server's value, the prototype untouched", async () => {
    const code = `const v = await proto.getRecord({ answer: "right" });
      return [v["__proto__"], typeof v["__proto__"], Object.keys(v), Object.getPrototypeOf(v) === Object.prototype];`;
    expect(await execute(code, false)).toEqual(["kept", "string", ["name", "__proto__"], true]);
  });

  it("pmcp exec keeps an added field by default and rejects it with --strict-objects", async () => {
    const program = join(dir, "extra.ts");
    await writeFile(program, "try { return await behave.extraFields(); } catch (e) { return (e as rt.CallError).code; }");
    const run = (...flags: string[]) =>
      runCli([
        "exec",
        program,
        "--stdio",
        `${JSON.stringify(process.execPath)} ${JSON.stringify(join(FIXTURES, "behaviour-server.mjs"))}`,
        "--id",
        "behave",
        ...flags,
      ]);
    const [lenient, strict] = await Promise.all([run(), run("--strict-objects")]);
    expect([lenient.code, JSON.parse(lenient.stdout)]).toEqual([0, { id: "e", count: 2, added: "new in v2" }]);
    expect([strict.code, JSON.parse(strict.stdout)]).toEqual([0, "OUTPUT_VALIDATION"]);
  }, 60_000);
});
