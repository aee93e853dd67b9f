import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { CompositionClient, ToolCallError } from "@pmcp-codegen/runtime";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Bundle, Tool } from "../../src/bundle/types.js";
import { toolsForModel } from "../../src/model/index.js";
import { normalizeBundle } from "../../src/normalize/bundle.js";
import { ROOT } from "../helpers/cli.js";
import { loadedBy, packageOf } from "../helpers/loaded-modules.js";

const require = createRequire(import.meta.url);
const reference = (name: string) => join(require.resolve(`@modelcontextprotocol/${name}/package.json`), "..", "dist/index.js");
const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));
const answers = async (name: string) => JSON.parse(await readFile(fixture(`model-answers/${name}.json`), "utf8"));

/**
 * The model bridge against real servers over stdio: three reference servers that refused the
 * nulls a model sends under OpenAI's strict mode, and a fixture whose schemas need every encoding,
 * driven by model answers written in each provider's own response shape.
 */
describe("toolsForModel and restoreArguments against real servers", () => {
  let dir: string;
  let client: CompositionClient;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "pmcp-model-"));
    await writeFile(join(dir, "notes.txt"), "one\ntwo\nthree\n");
    client = new CompositionClient({
      servers: {
        everything: { command: process.execPath, args: [reference("server-everything")] },
        filesystem: { command: process.execPath, args: [reference("server-filesystem"), dir] },
        thinking: { command: process.execPath, args: [reference("server-sequential-thinking")] },
        bridge: { command: process.execPath, args: [fixture("model-bridge-server.mjs")] },
      },
    });
  });
  afterAll(() => client.close());

  it("openai-strict: the nulls three real servers refused are restored away, and the calls succeed", async () => {
    const toolset = await toolsForModel(client, { profile: "openai-strict", servers: ["everything", "filesystem", "thinking"] });
    const cases = [
      { name: "read_text_file", server: "filesystem", args: { path: join(dir, "notes.txt"), tail: null, head: null }, refused: "tail" },
      { name: "get-resource-links", server: "everything", args: { count: null }, refused: "count" },
      {
        name: "sequentialthinking",
        server: "thinking",
        args: {
          thought: "Check the weather first.",
          nextThoughtNeeded: false,
          thoughtNumber: 1,
          totalThoughts: 1,
          isRevision: null,
          revisesThought: null,
          branchFromThought: null,
          branchId: null,
          needsMoreThoughts: null,
        },
        refused: "revisesThought",
      },
    ];
    for (const { name, server, args, refused } of cases) {
      // What the model sends, passed on as it is: the server's own validation refuses it.
      const direct = client.callToolForResult({ server, tool: name, args });
      await expect(direct, name).rejects.toBeInstanceOf(ToolCallError);
      await expect(direct, name).rejects.toThrow(refused);
      const { arguments: restored } = toolset.restore(name, args);
      expect(Object.values(restored), name).not.toContain(null);
    }
    expect(await toolset.call("read_text_file", cases[0]!.args, { id: "call_1" })).toEqual({
      type: "function_call_output",
      call_id: "call_1",
      output: "one\ntwo\nthree\n",
    });
    const thought = await toolset.call("sequentialthinking", cases[2]!.args, { id: "call_3" });
    expect(JSON.parse((thought as { output: string }).output)).toEqual({
      thoughtNumber: 1,
      totalThoughts: 1,
      nextThoughtNeeded: false,
      branches: [],
      thoughtHistoryLength: 1,
    });
    const links = (await toolset.call("get-resource-links", { count: null }, { id: "call_2" })) as { output: string };
    // The default count is 3: three links, each a line the model can read.
    expect(links.output.split("\n").filter((line) => line.startsWith("[resource link"))).toHaveLength(3);
  });

  it("gemini: a model answer with string enums and JSON text reaches the server as the tool declares it", async () => {
    const toolset = await toolsForModel(client, { profile: "gemini", servers: ["bridge"] });
    const configure = (toolset.tools[0].functionDeclarations.find((tool) => tool.name === "configure")?.parameters ?? {}) as {
      properties: Record<string, unknown>;
    };
    expect(configure.properties).toEqual({
      level: { type: "string", enum: ["1", "2", "3"] },
      verbose: { type: "string", enum: ["true", "false"] },
      labels: { type: "string", description: 'Schema: {"type":"object","additionalProperties":{"type":"string"}} (JSON text)' },
      options: { type: "string", description: "Anything the backend takes (JSON text)" },
      note: { type: "string" },
    });
    const parts = (await answers("gemini")).candidates[0].content.parts as { functionCall: { id: string; name: string; args: unknown } }[];
    const results = await Promise.all(parts.map(({ functionCall: call }) => toolset.call(call.name, call.args, { id: call.id })));
    expect(results).toEqual([
      {
        functionResponse: {
          id: "fc-1",
          name: "configure",
          response: { received: { level: 3, verbose: true, labels: { team: "core" }, options: { retries: 2, mode: ["a", "b"] } } },
        },
      },
      {
        functionResponse: {
          id: "fc-2",
          name: "get_weather",
          response: { city: "Lisbon", temperature: 18.5, units: "metric", conditions: "clear sky" },
        },
      },
    ]);
  });

  it("openai-strict: nulls for what was not given, a record as JSON text, and an image as an image part", async () => {
    const toolset = await toolsForModel(client, { profile: "openai-strict", servers: ["bridge"] });
    const output = (await answers("openai-strict")).output as { call_id: string; name: string; arguments: string }[];
    const results = await Promise.all(output.map((call) => toolset.call(call.name, JSON.parse(call.arguments), { id: call.call_id })));
    expect(results).toEqual([
      { type: "function_call_output", call_id: "call_1", output: JSON.stringify({ level: 2, labels: { team: "core" }, options: null }) },
      // The original allows null for city: null stays, and the server answers for it.
      {
        type: "function_call_output",
        call_id: "call_2",
        output: JSON.stringify({ city: "unknown", temperature: 18.5, units: "metric", conditions: "clear sky" }),
      },
      {
        type: "function_call_output",
        call_id: "call_3",
        // The picture itself, after a line saying what it is.
        output: [
          { type: "input_text", text: "[image image/png, 70 B]" },
          { type: "input_image", image_url: expect.stringMatching(/^data:image\/png;base64,iVBOR/) },
        ],
      },
    ]);
  });

  it("anthropic-strict: arguments that cannot be restored, and an isError result, reach the model as errors it can read", async () => {
    const toolset = await toolsForModel(client, { profile: "anthropic-strict", servers: ["bridge"] });
    const calls = (await answers("anthropic-strict")).content as { id: string; name: string; input: unknown }[];
    const results = await Promise.all(calls.map((call) => toolset.call(call.name, call.input, { id: call.id })));
    expect(results).toEqual([
      {
        type: "tool_result",
        tool_use_id: "toolu_1",
        is_error: true,
        content:
          "the arguments do not match the tool's input schema at /level: level: must be one of 1, 2 or 3. Correct them and call again.",
      },
      { type: "tool_result", tool_use_id: "toolu_2", is_error: true, content: "boom: testing" },
      {
        type: "tool_result",
        tool_use_id: "toolu_3",
        content: JSON.stringify({ level: 1, labels: { env: "prod" } }),
      },
    ]);
    expect(await toolset.call("no_such_tool", {}, { id: "toolu_4" })).toEqual({
      type: "tool_result",
      tool_use_id: "toolu_4",
      is_error: true,
      content: 'there is no tool "no_such_tool"; the tools are get_weather, configure, snapshot, explode',
    });
  });
});

describe("toolsForModel: the program's mistakes throw, the servers' failures are skipped", () => {
  it("a server that cannot be listed is skipped with the reason; unknown servers, a normalized bundle and a missing client throw", async () => {
    const client = new CompositionClient({
      servers: {
        bridge: { command: process.execPath, args: [fixture("model-bridge-server.mjs")] },
        dead: { command: join(tmpdir(), "pmcp-no-such-binary") },
      },
    });
    try {
      const toolset = await toolsForModel(client, { profile: "openai-strict" });
      expect(toolset.declared.map((tool) => tool.name)).toEqual(["get_weather", "configure", "snapshot", "explode"]);
      expect(toolset.skipped.map(({ server, tool, reason }) => [server, tool, reason.split(":")[0]])).toEqual([
        ["dead", "*", "not listed"],
      ]);
      // OpenAI's own `arguments` string is read as JSON; text that is not JSON goes back to the model.
      expect(await toolset.call("configure", '{"level":2,"verbose":null,"labels":null,"options":null,"note":null}', { id: "c1" })).toEqual({
        type: "function_call_output",
        call_id: "c1",
        // The free-form value allows null: the model's null stays.
        output: JSON.stringify({ level: 2, options: null }),
      });
      expect(await toolset.call("configure", "{level: 2", { id: "c2" })).toEqual({
        type: "function_call_output",
        call_id: "c2",
        output: "Error: /: the arguments are not JSON: send them as a JSON object",
      });
      await expect(toolsForModel(client, { profile: "gemini", servers: ["nope"] })).rejects.toThrow(
        'toolsForModel: no server "nope" (have: bridge, dead)',
      );
      const bundle = { version: "1.0", servers: [{ id: "bridge", tools: (await client.listTools("bridge")) as Tool[] }] };
      const offline = await toolsForModel(bundle, { profile: "gemini" });
      await expect(offline.call("get_weather", {})).rejects.toThrow("nothing can call them");
      // Arguments are never sent unchecked: a tool none of whose input schema compiles is not offered.
      const unchecked = { $schema: "https://example.com/no-such-meta-schema", type: "object" };
      const partly = { type: "object", properties: { id: { type: "string", pattern: "^[\\w-.]+$" } } };
      const odd = {
        version: "1.0",
        servers: [
          {
            id: "odd",
            tools: [
              { name: "unchecked", inputSchema: unchecked },
              { name: "partly", inputSchema: partly },
            ],
          },
        ],
      };
      const checked = await toolsForModel(odd as unknown as Bundle, { profile: "openai" });
      expect(checked.declared.map((tool) => tool.name)).toEqual(["partly"]);
      expect(checked.skipped).toEqual([
        { server: "odd", tool: "unchecked", reason: expect.stringMatching(/^inputSchema: the schema cannot be compiled: /) },
      ]);
      expect(() => checked.restore("partly", { id: "a b" })).toThrow("/id");
      const normalized = { version: "1.0", servers: normalizeBundle(bundle, "gemini").servers };
      await expect(toolsForModel(normalized, { profile: "gemini" })).rejects.toThrow(
        'server "bridge" tool "get_weather" was normalized already',
      );
    } finally {
      await client.close();
    }
  });
});

describe("pmcp-codegen/model, the entry an orchestrator imports", () => {
  it("loads no generator code: no compiler, templates, quicktype, codegen, IR or CLI", async () => {
    const { urls } = await loadedBy("pmcp-codegen/model");
    const files = urls.filter((url) => url.startsWith("file:")).map((url) => fileURLToPath(url));
    expect(files).toContain(join(ROOT, "dist/model/tools-for-model.js"));
    const ours = files
      .filter((file) => file.startsWith(join(ROOT, "dist/")))
      .map((file) => relative(join(ROOT, "dist"), file).split("/")[0]);
    expect([...new Set(ours)].sort()).toEqual([
      "bundle",
      "bundle-files",
      "count.js",
      "errors.js",
      "files",
      "json-schema",
      "model",
      "normalize",
      "providers",
    ]);
    const packages = new Set(files.filter((file) => file.startsWith(join(ROOT, "node_modules/"))).map(packageOf));
    for (const generator of ["typescript", "handlebars", "quicktype-core", "yargs"]) expect(packages.has(generator), generator).toBe(false);
  });
});
