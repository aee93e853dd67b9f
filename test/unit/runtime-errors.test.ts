import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompositionClient, CompositionError, ConfigurationError, OutputValidationError } from "@pmcp-codegen/runtime";
import { JsonFileError, readJsonFile } from "@pmcp-codegen/runtime/internal";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const ENTRY_SHAPE = "expected {command, args?, env?, cwd?, protocol?} or {url, type?, headers?, protocol?}";

function thrown(run: () => unknown): ConfigurationError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error("nothing was thrown");
}

async function rejection(pending: Promise<unknown>): Promise<ConfigurationError> {
  const error = await pending.then(
    () => new Error("nothing was thrown"),
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ConfigurationError);
  return error as ConfigurationError;
}

describe("new CompositionClient(): every configuration problem is a ConfigurationError", () => {
  it.each([
    ["an entry of neither kind", { servers: { a: { cmd: "x" } } }, `CompositionClient servers at a: ${ENTRY_SHAPE}`],
    [
      "an unset ${VAR}",
      { servers: { a: { url: "${PMCP_TEST_UNSET}" } } },
      'CompositionClient servers server "a" url: environment variable PMCP_TEST_UNSET is not set',
    ],
    ["a bad URL", { servers: { a: { url: "not a url" } } }, 'CompositionClient servers server "a": "not a url" is not a URL'],
    [
      "a bad server id",
      { servers: { "a b": { command: "node" } } },
      `CompositionClient servers server "a b": a server id is letters, digits, '.', '_' and '-', starting with a letter or digit`,
    ],
    ["bad retries", { servers: {}, retries: -1 }, "retries must be a whole number ≥ 0, got -1"],
    ["a bad timeoutMs", { servers: {}, timeoutMs: 0 }, "timeoutMs must be a positive number of milliseconds, got 0"],
    ["a NaN timeoutMs", { servers: {}, timeoutMs: Number.NaN }, "timeoutMs must be a positive number of milliseconds, got NaN"],
    // A timer longer than 2^31 - 1 ms fires at once, which made every call fail.
    [
      "an infinite timeoutMs",
      { servers: {}, timeoutMs: Infinity },
      "timeoutMs must be at most 2147483647 ms (about 24 days), got Infinity",
    ],
    [
      "a timeoutMs past a timer's reach",
      { servers: {}, timeoutMs: 2 ** 31 },
      "timeoutMs must be at most 2147483647 ms (about 24 days), got 2147483648",
    ],
    [
      "a bad observe.maxSamples",
      { servers: {}, observe: { dir: "obs", maxSamples: 0 } },
      "observe.maxSamples must be a whole number ≥ 1, got 0",
    ],
  ])("%s", (_name, options, message) => {
    const error = thrown(() => new CompositionClient(options as never));
    expect(error.message).toBe(message);
    expect(error).toBeInstanceOf(CompositionError);
    expect([error.code, error.name, error.serverId, error.toolName, error.file]).toEqual([
      "CONFIGURATION",
      "ConfigurationError",
      undefined,
      undefined,
      undefined,
    ]);
  });
});

describe("CompositionClient.fromConfigFile(): the file and the JSON path in every message", () => {
  it.each([
    ["missing", undefined, "cannot read config file <file>: ENOENT (no such file)", "FILE_NOT_FOUND"],
    [
      "bad JSON",
      "{",
      "config file <file> is not valid JSON: Expected property name or '}' in JSON at position 1 (line 1 column 2)",
      "NOT_JSON",
    ],
    ["null", "null", `config file <file>: expected an object with "mcpServers" (or VS Code's "servers")`, "INVALID"],
    [
      "misspelled mcpServers",
      JSON.stringify({ mcpservers: { a: { command: "node" } } }),
      `config file <file>: "mcpservers" is not read (keys are case-sensitive): did you mean "mcpServers"?`,
      "INVALID",
    ],
    [
      "misspelled servers",
      JSON.stringify({ Servers: {} }),
      `config file <file>: "Servers" is not read (keys are case-sensitive): did you mean "servers"?`,
      "INVALID",
    ],
    [
      "no server key",
      JSON.stringify({ tools: [], version: 1 }),
      `config file <file>: expected an object with "mcpServers" (or VS Code's "servers"); it has "tools", "version"`,
      "INVALID",
    ],
    [
      "wrong shape",
      JSON.stringify({ mcpServers: { a: { url: 3 }, b: { command: "" }, "c d": [], e: 1, f: 2 } }),
      [
        `config file <file> at mcpServers.a: ${ENTRY_SHAPE}`,
        "config file <file> at mcpServers.b.command: Too small: expected string to have >=1 characters",
        `config file <file> at mcpServers["c d"]: ${ENTRY_SHAPE}`,
        "config file <file>: and 2 more",
      ].join("\n"),
      "INVALID",
    ],
    [
      "VS Code's servers, wrong",
      JSON.stringify({ servers: { a: { url: "" } } }),
      "config file <file> at servers.a.url: Too small: expected string to have >=1 characters",
      "INVALID",
    ],
  ])("%s", async (name, text, message, reason) => {
    const file = join(await mkdtemp(join(tmpdir(), "pmcp-config-")), `${name.replaceAll(" ", "-")}.json`);
    if (text !== undefined) await writeFile(file, text);
    const error = await rejection(CompositionClient.fromConfigFile(file));
    expect(error.message).toBe(message.replaceAll("<file>", file));
    expect([error.code, error.file, error.serverId]).toEqual(["CONFIGURATION", file, undefined]);
    expect(error.cause).toBeInstanceOf(JsonFileError);
    expect((error.cause as JsonFileError).code).toBe(reason);
  });

  it("an unset ${VAR} in an entry names the file and the entry, and sets `file`", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "pmcp-config-")), "mcp.json");
    await writeFile(
      file,
      JSON.stringify({ mcpServers: { inv: { url: "http://127.0.0.1/mcp", headers: { Authorization: "Bearer ${PMCP_TEST_UNSET}" } } } }),
    );
    const error = await rejection(CompositionClient.fromConfigFile(file));
    expect(error.message).toBe(`${file} server "inv" header Authorization: environment variable PMCP_TEST_UNSET is not set`);
    expect(error.file).toBe(file);
  });
});

describe("readJsonFile: one reader for every JSON file", () => {
  it("returns the parsed, validated value", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "pmcp-json-")), "a.json");
    await writeFile(file, '{"n": 1, "extra": true}');
    expect(await readJsonFile(file, z.object({ n: z.number() }))).toEqual({ n: 1 });
  });

  it("names the file and each JSON path, without a label when not given one", async () => {
    const file = join(await mkdtemp(join(tmpdir(), "pmcp-json-")), "a.json");
    await writeFile(file, '{"items": [{"n": "x"}]}');
    const error = await readJsonFile(file, z.object({ items: z.array(z.object({ n: z.number() })) })).then(
      () => undefined,
      (reason: unknown) => reason as JsonFileError,
    );
    if (error === undefined) throw new Error("nothing was thrown");
    expect(error).toBeInstanceOf(JsonFileError);
    expect([error.code, error.file, error.message]).toEqual([
      "INVALID",
      file,
      `${file} at items[0].n: Invalid input: expected number, received string`,
    ]);
    expect(error.issues.map((issue) => issue.path)).toEqual([["items", 0, "n"]]);
  });
});

describe("OutputValidationError's message uses the same formatter", () => {
  it("lists each issue at its JSON path", () => {
    const parsed = z
      .object({ items: z.array(z.object({ quantity: z.number() })), name: z.string() })
      .safeParse({ items: [{ quantity: "2" }], name: 3 });
    const error = new OutputValidationError("shop", "list", parsed.error!.issues, {});
    expect(error.message).toBe(
      [
        "shop/list: result does not match the output schema at items[0].quantity: Invalid input: expected number, received string",
        "result does not match the output schema at name: Invalid input: expected string, received number",
      ].join("\n"),
    );
  });
});

describe("a call's own timeoutMs is checked before anything is started", () => {
  it.each([0, -1, Number.NaN, Infinity, 2 ** 31])("timeoutMs %s is a ConfigurationError naming the option", async (timeoutMs) => {
    const client = new CompositionClient({ servers: { nowhere: { command: "no-such-server-binary" } } });
    const error = await rejection(client.callTool({ server: "nowhere", tool: "t", parse: z.unknown() }, { timeoutMs }));
    expect(error.message).toMatch(new RegExp(`^the call's timeoutMs must be .*, got ${String(timeoutMs)}$`));
  });
});
