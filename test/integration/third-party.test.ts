import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { CompositionClient, InvalidResponseError, ToolCallError } from "@pmcp-codegen/runtime";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli, serverCommand } from "../helpers/cli.js";
import { COMPILE_BUDGET_MS, outputDir, typecheck, typecheckCases } from "../helpers/typescript.js";

const require = createRequire(import.meta.url);
const main = (name: string) => join(require.resolve(`@modelcontextprotocol/${name}/package.json`), "..", "dist/index.js");

let dir: string;
let bundlePath: string;
let exported: Awaited<ReturnType<typeof runCli>>;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "pmcp-third-party-"));
  bundlePath = join(dir, "bundle.json");
  exported = await runCli(
    [
      "schema",
      "export",
      "--stdio",
      serverCommand("server-everything"),
      "--stdio",
      serverCommand("server-filesystem", dir),
      "--stdio",
      serverCommand("server-memory"),
      "-o",
      bundlePath,
      "--json",
    ],
    { env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") } },
  );
});

describe("third-party servers", () => {
  it("exports server-everything, -filesystem and -memory in one command", async () => {
    expect(exported.code, exported.stderr).toBe(0);
    const bundle = JSON.parse(await readFile(bundlePath, "utf8"));
    const counts = Object.fromEntries(
      bundle.servers.map((server: { id: string; tools: { outputSchema?: unknown }[] }) => [
        server.id,
        { tools: server.tools.length, withOutputSchema: server.tools.filter((tool) => tool.outputSchema).length },
      ]),
    );
    // The counts of the installed versions (package-lock.json pins them).
    expect(counts).toEqual({
      "mcp-servers-everything": { tools: 13, withOutputSchema: 1 },
      "secure-filesystem-server": { tools: 14, withOutputSchema: 14 },
      "memory-server": { tools: 9, withOutputSchema: 9 },
    });
    const memory = bundle.servers.find((server: { id: string }) => server.id === "memory-server");
    const readGraph = memory.tools.find((tool: { name: string }) => tool.name === "read_graph");
    expect(readGraph.outputSchema).toMatchObject({ type: "object", properties: { entities: { type: "array" } } });
    expect(readGraph.annotations).toMatchObject({ readOnlyHint: true });
    const files = bundle.servers.find((server: { id: string }) => server.id === "secure-filesystem-server");
    expect(files.tools.map((tool: { name: string }) => tool.name)).toContain("read_text_file");
    expect(JSON.parse(exported.stdout).servers).toHaveLength(3);
  });

  it(
    "calls every self-contained tool of server-everything through the generated client, typed",
    async () => {
      expect(exported.code, exported.stderr).toBe(0);
      const work = await outputDir("third-party");
      const out = join(work, "generated");
      const generated = await runCli(["generate", "--schema", bundlePath, "-o", out, "--quiet"]);
      expect(generated.code, generated.stderr).toBe(0);
      const module = await readFile(join(out, "mcp-servers-everything.ts"), "utf8");
      expect(module).toContain("export type EchoResult = rt.ToolResult;");
      expect(module).not.toContain("rt.JsonValue;");
      const usage = join(work, "calls.ts");
      await writeFile(usage, USAGE);
      expect(await typecheck(work, [join(out, "index.ts"), usage], "nodenext")).toBe("");

      const logs = join(work, "observations");
      const client = new CompositionClient({
        servers: {
          "mcp-servers-everything": { command: process.execPath, args: [main("server-everything")], env: { PMCP_MARK: "callable" } },
          "secure-filesystem-server": { command: process.execPath, args: [main("server-filesystem"), dir] },
          "memory-server": {
            command: process.execPath,
            args: [main("server-memory")],
            env: { MEMORY_FILE_PATH: join(dir, "memory.jsonl") },
          },
        },
        observe: { dir: logs },
        timeoutMs: 30_000,
      });
      const calls = (await import(usage)) as { callAll: (client: CompositionClient) => Promise<Record<string, unknown>> };
      let seen: Record<string, unknown>;
      try {
        seen = await calls.callAll(client);
        // A tool that reports isError is a ToolCallError with the text of its text blocks.
        const failed = await new (await import(join(out, "index.ts"))).McpServersEverythingClient(client)
          .getResourceReference({ resourceId: 0 })
          .catch((error: unknown) => error);
        expect(failed).toBeInstanceOf(ToolCallError);
        expect((failed as ToolCallError).text).toMatch(
          /^(MCP error -32602: )?Invalid resourceId: 0\. Must be a finite positive integer\.$/,
        );
      } finally {
        await client.close();
      }

      expect(seen.echo).toBe("Echo: hi");
      expect(seen.echoJson).toBeInstanceOf(InvalidResponseError);
      expect((seen.echoJson as Error).message).toBe(
        'mcp-servers-everything/echo: the result has no structuredContent and its text is not JSON: "Echo: hi"',
      );
      expect(seen.sum).toBe("The sum of 1 and 2 is 3.");
      expect(seen.research).toBe("# Research Report: tasks");
      expect(seen.annotated).toEqual({ text: "Operation completed successfully", types: ["text", "image"], mimeTypes: ["image/png"] });
      const image = seen.image as { text: string; types: string[]; images: { mimeType: string; data: string }[] };
      expect(image.text).toBe("Here's the image you requested:\nThe image above is the MCP logo.");
      expect(image.types).toEqual(["text", "image", "text"]);
      expect(image.images.map((block) => block.mimeType)).toEqual(["image/png"]);
      expect([...Buffer.from(image.images[0]!.data, "base64").subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      expect(seen.links).toEqual({
        text: "Here are 4 resource links to resources available in this server:",
        uris: [
          "demo://resource/dynamic/blob/1",
          "demo://resource/dynamic/text/2",
          "demo://resource/dynamic/blob/3",
          "demo://resource/dynamic/text/4",
        ],
      });
      expect(seen.textResource).toEqual({
        text: "Returning resource reference for Resource 2:\nYou can access this resource using the URI: demo://resource/dynamic/text/2",
        resources: [{ uri: "demo://resource/dynamic/text/2", mimeType: "text/plain", hasText: true, hasBlob: false }],
      });
      expect(seen.blobResource).toMatchObject({
        resources: [{ uri: "demo://resource/dynamic/blob/1", hasText: false, hasBlob: true }],
      });
      expect(seen.env).toEqual({ mark: "callable", has: true, hasMissing: false, parsed: "callable" });
      expect(seen.envRequire).toBeInstanceOf(InvalidResponseError);
      expect((seen.envRequire as Error).message).toBe('mcp-servers-everything/get-env: the result has no key "NO_SUCH_VARIABLE"');
      expect(seen.weather).toEqual({ temperature: 36, conditions: "Light rain / drizzle", humidity: 82 });
      expect(seen.weatherWhole).toEqual({
        value: { temperature: 36, conditions: "Light rain / drizzle", humidity: 82 },
        text: JSON.stringify({ temperature: 36, conditions: "Light rain / drizzle", humidity: 82 }),
        types: ["text"],
      });
      const gzipped = seen.gzip as { resource: { uri: string; mimeType: string; blob: string }; link: { uri: string; mimeType: string } };
      expect(gunzipSync(Buffer.from(gzipped.resource.blob, "base64")).toString("utf8")).toBe("hello, gzip");
      expect(gzipped.resource.mimeType).toBe("application/gzip");
      expect(gzipped.link).toEqual({ uri: "demo://resource/session/hello.txt.gz", mimeType: "application/gzip" });
      expect(seen.logging).toEqual([
        expect.stringMatching(/^Started simulated, random-leveled logging /),
        expect.stringMatching(/^Stopped simulated logging /),
      ]);
      expect(seen.updates).toEqual([
        expect.stringMatching(/^Started simulated resource updated notifications /),
        expect.stringMatching(/^Stopped simulated resource updates /),
      ]);
      expect(seen.longRunning).toBe("Long running operation completed. Duration: 0 seconds, Steps: 1.");
      expect(seen.directories).toEqual({ same: true, listsDir: true, types: ["text"] });
      expect(seen.graph).toEqual({ value: { entities: [], relations: [] }, structured: { entities: [], relations: [] } });

      // Prose is logged as what it is; JSON text (get-env) is learned from, prose never.
      const infer = await runCli([
        "schema",
        "infer",
        "--quiet",
        "--schema",
        bundlePath,
        "-o",
        join(work, "inferred.json"),
        "--observations",
        logs,
      ]);
      expect(infer.code, infer.stderr).toBe(0);
      const report = JSON.parse((await runCli(["report", "--json", "--schema", join(work, "inferred.json")])).stdout);
      const everything = report.servers.find((server: { id: string }) => server.id === "mcp-servers-everything");
      expect(everything).toMatchObject({ bySource: { declared: 0, hybrid: 1, inferred: 1, unknown: 11 }, noJson: 11 });
      expect(everything.byContent).toEqual({ text: 10, image: 2, resource_link: 2, resource: 2 });
      expect(report.noJson.map((line: { tool: string; content: object }) => [line.tool, line.content])).toEqual([
        ["echo", { text: 1 }],
        ["get-annotated-message", { text: 1, image: 1 }],
        ["get-resource-links", { text: 1, resource_link: 1 }],
        ["get-resource-reference", { text: 2, resource: 2 }],
        ["get-sum", { text: 1 }],
        ["get-tiny-image", { text: 1, image: 1 }],
        ["gzip-file-as-resource", { resource: 1, resource_link: 1 }],
        ["simulate-research-query", { text: 1 }],
        ["toggle-simulated-logging", { text: 2 }],
        ["toggle-subscriber-updates", { text: 2 }],
        ["trigger-long-running-operation", { text: 1 }],
      ]);
    },
    COMPILE_BUDGET_MS,
  );
});

describe("a tool that runs only as a task, in code mode", () => {
  it("pmcp exec calls simulate-research-query as a task and returns its report", async () => {
    const program = join(dir, "research.ts");
    await writeFile(
      program,
      'const report = await mcpServersEverything.simulateResearchQuery({ topic: "code mode" });\nreturn report.text.split("\\n")[0];\n',
    );
    const result = await runCli(["exec", program, "--stdio", serverCommand("server-everything")]);
    expect([result.code, result.stdout.trim()], result.stderr).toEqual([0, '"# Research Report: code mode"']);
  });
});

/** Written against get-env while it was untyped: its result as it came, passed on and read by key. */
const UNTYPED_CALLER = `import type * as rt from "@pmcp-codegen/runtime";
import type { McpServersEverythingClient } from "./generated/index.js";

export function environment(client: McpServersEverythingClient): Promise<rt.ToolResult> {
  return client.getEnv();
}

export async function path(client: McpServersEverythingClient): Promise<string> {
  const result: rt.ToolResult = await client.getEnv();
  const path = result.get("PATH");
  return typeof path === "string" ? path : result.text;
}
`;

/** Written once get-env is typed by what it was seen to answer: a record of strings in \`.value\`, beside the result. */
const TYPED_CALLER = `import type { CompositionClient } from "@pmcp-codegen/runtime";
import { McpServersEverythingClient } from "./generated/index.js";

export async function variables(client: CompositionClient): Promise<[string | undefined, boolean, boolean]> {
  const env = await new McpServersEverythingClient(client).getEnv();
  const path: string | undefined = env.value["PATH"];
  return [env.value["PMCP_VAR_3"], env.get("PATH") === path, env.text.includes("PMCP_VAR_3")];
}
`;

describe("get-env learned from one observation", () => {
  it(
    "is typed as a record of strings, and the code written for the untyped tool still compiles",
    async () => {
      expect(exported.code, exported.stderr).toBe(0);
      const work = await outputDir("learned-env");
      const generate = async (schema: string, folder: string) => {
        const generated = await runCli(["generate", "--schema", schema, "-o", join(work, folder, "generated"), "--quiet"]);
        expect(generated.code, generated.stderr).toBe(0);
        await writeFile(join(work, folder, "caller.ts"), UNTYPED_CALLER);
      };
      await generate(bundlePath, "before");

      // Observed as a caller of the untyped tool would: 25 variables beside the few a spawned server gets.
      const logs = join(work, "observations");
      const env = Object.fromEntries(Array.from({ length: 25 }, (_, index) => [`PMCP_VAR_${index}`, `value ${index}`]));
      const client = new CompositionClient({
        servers: { "mcp-servers-everything": { command: process.execPath, args: [main("server-everything")], env } },
        observe: { dir: logs },
        timeoutMs: 30_000,
      });
      try {
        const before = (await import(join(work, "before/caller.ts"))) as { path: (client: unknown) => Promise<string> };
        const { McpServersEverythingClient } = await import(join(work, "before/generated/index.ts"));
        expect(typeof (await before.path(new McpServersEverythingClient(client)))).toBe("string");
      } finally {
        await client.close();
      }

      const inferred = join(work, "inferred.json");
      const infer = await runCli(["schema", "infer", "--schema", bundlePath, "-o", inferred, "--observations", logs]);
      expect([infer.code, infer.stdout.split("\n")[0]], infer.stderr).toEqual([
        0,
        "inferred mcp-servers-everything/get-env: 1 observation, quality low (consistency 1)",
      ]);
      await generate(inferred, "after");
      await writeFile(join(work, "after", "typed.ts"), TYPED_CALLER);
      const module = await readFile(join(work, "after/generated/mcp-servers-everything.ts"), "utf8");
      expect(module).toContain("export type GetEnvResult = { [key: string]: string };");
      expect(module).toContain("getEnv(args?: GetEnvArgs, options?: rt.CallOptions): Promise<rt.ParsedResult<GetEnvResult>> {");
      const files = (folder: string, ...callers: string[]) => ["generated/index.ts", ...callers].map((file) => join(work, folder, file));
      expect(
        await typecheckCases(work, { before: files("before", "caller.ts"), after: files("after", "caller.ts", "typed.ts") }, "nodenext"),
      ).toEqual({ before: "", after: "" });

      const typed = (await import(join(work, "after/typed.ts"))) as { variables: (client: CompositionClient) => Promise<unknown> };
      const again = new CompositionClient({
        servers: { "mcp-servers-everything": { command: process.execPath, args: [main("server-everything")], env } },
        timeoutMs: 30_000,
      });
      try {
        expect(await typed.variables(again)).toEqual(["value 3", true, true]);
      } finally {
        await again.close();
      }
    },
    COMPILE_BUDGET_MS,
  );
});

/**
 * Calls every tool of server-everything that needs nothing from outside, simulate-research-query
 * too, which runs only as an MCP task (`taskSupport: "required"`): the generated method creates
 * the task and waits for its result. The gzip tool reads a data: URL, so no network. Compiled with tsc --strict first: the
 * annotations below are the claim that no cast is needed.
 */
const USAGE = `import * as rt from "@pmcp-codegen/runtime";
import { z } from "zod";
import { McpServersEverythingClient, MemoryServerClient, SecureFilesystemServerClient } from "./generated/index.js";

async function failure(call: () => unknown): Promise<unknown> {
  try {
    call();
    return undefined;
  } catch (error) {
    return error;
  }
}

function resources(result: rt.ToolResult) {
  return result.resources.map((block) => ({
    uri: block.resource.uri,
    mimeType: block.resource.mimeType,
    hasText: "text" in block.resource,
    hasBlob: "blob" in block.resource,
  }));
}

export async function callAll(client: rt.CompositionClient): Promise<Record<string, unknown>> {
  const everything = new McpServersEverythingClient(client);
  const echo: rt.ToolResult = await everything.echo({ message: "hi" });
  const sum = await everything.getSum({ a: 1, b: 2 });
  const annotated = await everything.getAnnotatedMessage({ messageType: "success", includeImage: true });
  const image = await everything.getTinyImage();
  const links = await everything.getResourceLinks({ count: 4 });
  const text = await everything.getResourceReference({ resourceType: "Text", resourceId: 2 });
  const blob = await everything.getResourceReference({ resourceType: "Blob", resourceId: 1 });
  const env = await everything.getEnv();
  const weather: { temperature: number; conditions: string } = await everything.getStructuredContent({ location: "Chicago" });
  const whole: rt.ParsedResult<{ temperature: number }> = await everything.getStructuredContent({ location: "Chicago" }, { withResult: true });
  const data = "data:text/plain;base64," + btoa("hello, gzip");
  const gzipResource = await everything.gzipFileAsResource({ name: "hello.txt.gz", data, outputType: "resource" });
  const gzipLink = await everything.gzipFileAsResource({ name: "hello.txt.gz", data, outputType: "resourceLink" });
  const logging = [(await everything.toggleSimulatedLogging()).text, (await everything.toggleSimulatedLogging()).text];
  const updates = [(await everything.toggleSubscriberUpdates()).text, (await everything.toggleSubscriberUpdates()).text];
  const longRunning = await everything.triggerLongRunningOperation({ duration: 0, steps: 1 });
  const research: rt.ToolResult = await everything.simulateResearchQuery({ topic: "tasks" });

  const files = new SecureFilesystemServerClient(client);
  const directories = await files.listAllowedDirectories(undefined, { withResult: true });
  const memory = new MemoryServerClient(client);
  const graph = await memory.readGraph(undefined, { withResult: true });

  const embedded = gzipResource.resources[0]?.resource;
  const link = gzipLink.resourceLinks[0];
  return {
    echo: echo.text,
    echoJson: await failure(() => echo.json()),
    sum: sum.text,
    research: research.text.split("\\n")[0],
    annotated: {
      text: annotated.text,
      types: annotated.blocks.map((block) => block.type),
      mimeTypes: annotated.images.map((block) => block.mimeType),
    },
    image: {
      text: image.text,
      types: image.blocks.map((block) => block.type),
      images: image.images.map((block) => ({ mimeType: block.mimeType, data: block.data })),
    },
    links: { text: links.text, uris: links.resourceLinks.map((block) => block.uri) },
    textResource: { text: text.text, resources: resources(text) },
    blobResource: { resources: resources(blob) },
    env: {
      mark: env.get("PMCP_MARK"),
      has: env.has("PMCP_MARK"),
      hasMissing: env.has("NO_SUCH_VARIABLE"),
      parsed: env.json(z.object({ PMCP_MARK: z.string() })).PMCP_MARK,
    },
    envRequire: await failure(() => env.require("NO_SUCH_VARIABLE")),
    weather,
    weatherWhole: { value: whole.value, text: whole.text, types: whole.blocks.map((block) => block.type) },
    gzip: {
      resource: embedded !== undefined && "blob" in embedded ? { uri: embedded.uri, mimeType: embedded.mimeType, blob: embedded.blob } : undefined,
      link: link === undefined ? undefined : { uri: link.uri, mimeType: link.mimeType },
    },
    logging,
    updates,
    longRunning: longRunning.text,
    directories: {
      same: directories.value.content === directories.text,
      listsDir: directories.text.includes("pmcp-third-party-"),
      types: directories.blocks.map((block) => block.type),
    },
    graph: { value: graph.value, structured: graph.structuredContent },
  };
}

export async function typeClaims(everything: McpServersEverythingClient): Promise<void> {
  // @ts-expect-error a tool that declares no output schema does not claim to return JSON
  const json: rt.JsonValue = await everything.echo({ message: "x" });
  // @ts-expect-error nor a string: its text is .text
  const text: string = await everything.getSum({ a: 1, b: 2 });
  // @ts-expect-error withResult is for tools with a parsed value
  await everything.echo({ message: "x" }, { withResult: true });
  void [json, text];
}
`;
