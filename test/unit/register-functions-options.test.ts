import { Client } from "@modelcontextprotocol/client";
import { type CallToolResult, InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { type ManifestTool, type RegisterFunctionsOptions, registerFunctions, type ToolManifest } from "../../src/server/index.js";

/** A tool of the test manifest: one string argument, `q`, and tool tags. */
function tool(name: string, tags: { category?: string; phase?: string; popularity?: number; rateLimit?: string }): ManifestTool {
  const meta = Object.fromEntries(Object.entries(tags).map(([key, value]) => [`pmcp/${key}`, value]));
  return {
    name,
    function: name,
    inputSchema: { type: "object", properties: { q: { type: "string" } }, additionalProperties: false },
    ...(Object.keys(meta).length === 0 ? {} : { _meta: meta }),
  };
}

/** In manifest order; the basic ones by popularity are search_tweets (10), post_tweet (9), get_tweet (8). */
const manifest: ToolManifest = {
  version: 1,
  source: "tweets.ts",
  tools: [
    tool("get_tweet", { category: "read", phase: "basic", popularity: 8, rateLimit: "read" }),
    tool("follow_user", { category: "write" }),
    tool("search_tweets", { category: "read", phase: "basic", popularity: 10, rateLimit: "read" }),
    tool("delete_tweet", { category: "write", popularity: 2 }),
    tool("post_tweet", { category: "write", phase: "basic", popularity: 9, rateLimit: "write" }),
    tool("server_status", { popularity: 1 }),
    tool("get_user", { category: "read", popularity: 5 }),
  ],
};

/** The manifest's tools, most popular first; ties (0: none given) in manifest order. */
const BY_POPULARITY = ["search_tweets", "post_tweet", "get_tweet", "get_user", "delete_tweet", "server_status", "follow_user"];

/** The functions, which record each call that ran and return how many have. */
function tweets(ran: string[] = []): Record<string, unknown> {
  return Object.fromEntries(
    manifest.tools.map(({ name }) => [name, async ({ q }: { q?: string }) => ran.push(`${name} ${q ?? ""}`.trim())]),
  );
}

interface Served {
  client: Client;
  /** How many `notifications/tools/list_changed` the client has received. */
  changes: () => number;
  names: () => Promise<string[]>;
  call: (name: string, args?: Record<string, unknown>) => Promise<CallToolResult>;
}

/** Buckets too large to matter, for the tests of other things. */
const ROOMY = { read: { calls: 1000, perMs: 1 }, write: { calls: 1000, perMs: 1 } };

/** The clients of this test's servers, closed after it. */
const opened: Client[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((client) => client.close()));
});

async function open(options: RegisterFunctionsOptions, module = tweets()): Promise<Served> {
  const server = new McpServer({ name: "tweets", version: "1.0.0" });
  registerFunctions(server, module, manifest, { rateLimits: ROOMY, ...options });
  const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "test", version: "1.0.0" });
  let changes = 0;
  client.setNotificationHandler("notifications/tools/list_changed", () => {
    changes++;
  });
  await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
  opened.push(client);
  return {
    client,
    changes: () => changes,
    names: async () => (await client.listTools()).tools.map(({ name }) => name),
    call: async (name, args = {}) => (await client.callTool({ name, arguments: args })) as CallToolResult,
  };
}

const text = (value: string): CallToolResult => ({ content: [{ type: "text", text: value }] });
const refused = (message: string, retryAfterMs: number): CallToolResult => ({
  content: [{ type: "text", text: message }],
  isError: true,
  _meta: { "pmcp/retryAfterMs": retryAfterMs },
});
const INTRO = "Lists more of this server's tools, all of them or one category's; the tools list then includes them.";

describe("registerFunctions listing: basic tools first", () => {
  it("lists the basic tools, most popular first, then enable_tools, and declares that the list changes", async () => {
    const { client } = await open({ listing: "basic" });
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    const { tools } = await client.listTools();
    expect(tools.map(({ name }) => name)).toEqual(["search_tweets", "post_tweet", "get_tweet", "enable_tools"]);
    expect(tools.at(-1)).toEqual({
      name: "enable_tools",
      description: `${INTRO} Not listed yet: 1 tool in "read", 2 tools in "write", 1 tool without a category.`,
      inputSchema: {
        type: "object",
        properties: {
          category: { type: "string", enum: ["read", "write"], description: "Only the tools of this category; without it, all." },
        },
        additionalProperties: false,
      },
      _meta: { "pmcp/unlisted": 4 },
    });
  });

  it("adds one category's tools, says which, and sends list_changed", async () => {
    const { call, names, changes, client } = await open({ listing: "basic" });
    expect(await call("enable_tools", { category: "write" })).toEqual(text("Added 2 tools to the tools list: delete_tweet, follow_user"));
    expect(changes()).toBe(1);
    expect(await names()).toEqual(["search_tweets", "post_tweet", "get_tweet", "delete_tweet", "follow_user", "enable_tools"]);
    const enableTools = (await client.listTools()).tools.at(-1);
    expect(enableTools?.description).toBe(`${INTRO} Not listed yet: 1 tool in "read", 1 tool without a category.`);
    expect(enableTools?._meta).toEqual({ "pmcp/unlisted": 2 });
    expect(await call("enable_tools", { category: "write" })).toEqual(text('Every tool of category "write" is listed already'));
    expect(changes()).toBe(1);
  });

  it("adds all the others, and says when nothing is left", async () => {
    const { call, names, changes, client } = await open({ listing: "basic" });
    expect(await call("enable_tools")).toEqual(text("Added 4 tools to the tools list: get_user, delete_tweet, server_status, follow_user"));
    expect(await names()).toEqual([...BY_POPULARITY, "enable_tools"]);
    const enableTools = (await client.listTools()).tools.at(-1);
    expect(enableTools?.description).toBe(`${INTRO} Every tool is listed already.`);
    expect(enableTools?._meta).toEqual({ "pmcp/unlisted": 0 });
    expect(await call("enable_tools")).toEqual(text("Every tool is listed already"));
    expect(await call("enable_tools", { category: "read" })).toEqual(text('Every tool of category "read" is listed already'));
    expect(changes()).toBe(1);
  });

  it("keeps each server's listing its own", async () => {
    const first = await open({ listing: "basic" });
    const second = await open({ listing: "basic" });
    await first.call("enable_tools");
    expect(await second.names()).toEqual(["search_tweets", "post_tweet", "get_tweet", "enable_tools"]);
    expect(second.changes()).toBe(0);
  });

  it("refuses a category no unlisted tool has, as enable_tools' schema says", async () => {
    const { call } = await open({ listing: "basic" });
    expect(await call("enable_tools", { category: "admin" })).toEqual({
      ...text('Invalid arguments for tool enable_tools: category: must be one of "read" or "write"'),
      isError: true,
    });
  });

  it("still runs a tool not listed yet when it is called by name", async () => {
    const ran: string[] = [];
    const { call, names } = await open({ listing: "basic" }, tweets(ran));
    expect(await call("get_user", { q: "ada" })).toEqual(text("1"));
    expect(ran).toEqual(["get_user ada"]);
    expect(await names()).toEqual(["search_tweets", "post_tweet", "get_tweet", "enable_tools"]);
  });

  it("lists the top N by popularity, ties in manifest order", async () => {
    const { names, call } = await open({ listing: { top: 5 } });
    expect(await names()).toEqual(["search_tweets", "post_tweet", "get_tweet", "get_user", "delete_tweet", "enable_tools"]);
    expect(await call("enable_tools")).toEqual(text("Added 2 tools to the tools list: server_status, follow_user"));
  });

  it("orders a listing that has every tool from the start, and still adds enable_tools", async () => {
    const { client, names, call } = await open({ listing: { top: 7 } });
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: true });
    expect(await names()).toEqual([...BY_POPULARITY, "enable_tools"]);
    expect((await client.listTools()).tools.at(-1)).toEqual({
      name: "enable_tools",
      description: `${INTRO} Every tool is listed already.`,
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      _meta: { "pmcp/unlisted": 0 },
    });
    expect(await call("enable_tools")).toEqual(text("Every tool is listed already"));
  });

  it('lists every tool in manifest order with "all", the default', async () => {
    const { client, names } = await open({});
    expect(client.getServerCapabilities()?.tools).toEqual({});
    expect(await names()).toEqual(manifest.tools.map(({ name }) => name));
  });

  it("refuses a manifest tool named enable_tools", () => {
    const named: ToolManifest = { ...manifest, tools: [tool("enable_tools", {})] };
    const register = () =>
      registerFunctions(new McpServer({ name: "x", version: "1" }), { enable_tools: async () => 1 }, named, { listing: "basic" });
    expect(register).toThrow(
      expect.objectContaining({
        code: "DUPLICATE_TOOL",
        message: 'tweets.ts: tool "enable_tools" has the name of the tool that listing "basic" adds; rename it or list all tools',
      }),
    );
  });
});

describe("registerFunctions on a server with tools of its own", () => {
  // Its handlers serve the manifest's tools only: the registerTool ones were dropped from tools/list unsaid.
  it("refuses a server with tools from registerTool, naming them, and serves nothing in their place", async () => {
    const server = new McpServer({ name: "x", version: "1" });
    for (const name of ["ping", "pong", "status", "echo"]) server.registerTool(name, { description: name }, async () => ({ content: [] }));
    expect(() => registerFunctions(server, tweets(), manifest)).toThrow(
      expect.objectContaining({
        code: "DUPLICATE_TOOL",
        message:
          'tweets.ts: registerFunctions serves every tool of its server, and this server has tools from registerTool ("ping", "pong", "status" and 1 more), which it would no longer serve: serve them from the manifest too, or from a server of their own',
      }),
    );
    const client = new Client({ name: "c", version: "1" });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
    expect((await client.listTools()).tools.map((listed) => listed.name)).toEqual(["ping", "pong", "status", "echo"]);
    await client.close();
  });
});

describe("registerFunctions rateLimits", () => {
  // The buckets read performance.now(), which these timers move; the SDK's own timers stay real.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["performance"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const limits = () => ({ read: { calls: 2, perMs: 1000 }, write: { calls: 1, perMs: 500 } });

  it("refuses a call past its bucket without running it, says when to retry, and recovers after the window", async () => {
    const ran: string[] = [];
    const { call } = await open({ rateLimits: limits() }, tweets(ran));
    expect(await call("search_tweets", { q: "a" })).toEqual(text("1"));
    vi.advanceTimersByTime(100);
    // get_tweet draws on the same bucket.
    expect(await call("get_tweet", { q: "b" })).toEqual(text("2"));
    vi.advanceTimersByTime(166);
    const refusal = await call("search_tweets", { q: "c" });
    expect(refusal).toEqual(refused('Rate limited: bucket "read" allows 2 calls per 1000 ms; retry in 734 ms', 734));
    expect(ran).toEqual(["search_tweets a", "get_tweet b"]);
    // The refused call spent nothing: once the first call leaves the window, one more fits.
    vi.advanceTimersByTime(refusal._meta?.["pmcp/retryAfterMs"] as number);
    expect(await call("search_tweets", { q: "d" })).toEqual(text("3"));
    expect(await call("get_tweet", { q: "e" })).toEqual(
      refused('Rate limited: bucket "read" allows 2 calls per 1000 ms; retry in 100 ms', 100),
    );
    expect(ran).toEqual(["search_tweets a", "get_tweet b", "search_tweets d"]);
  });

  it("checks the arguments first: a call refused for them spends nothing", async () => {
    const { call } = await open({ rateLimits: limits() });
    expect(await call("post_tweet", { q: 1 })).toEqual({
      ...text("Invalid arguments for tool post_tweet: q: must be string"),
      isError: true,
    });
    expect(await call("post_tweet", { q: "hello" })).toEqual(text("1"));
    expect(await call("post_tweet", { q: "again" })).toEqual(
      refused('Rate limited: bucket "write" allows 1 call per 500 ms; retry in 500 ms', 500),
    );
    // Tools without a bucket are never limited.
    for (let i = 0; i < 3; i++) expect((await call("get_user")).isError).toBeUndefined();
  });

  it("shares a bucket between servers given the same rateLimits object, and only then", async () => {
    const shared = limits();
    const first = await open({ rateLimits: shared });
    const second = await open({ rateLimits: shared });
    const own = await open({ rateLimits: limits() });
    expect(await first.call("post_tweet", { q: "a" })).toEqual(text("1"));
    vi.advanceTimersByTime(200);
    expect(await second.call("post_tweet", { q: "b" })).toEqual(
      refused('Rate limited: bucket "write" allows 1 call per 500 ms; retry in 300 ms', 300),
    );
    expect(await own.call("post_tweet", { q: "c" })).toEqual(text("1"));
  });

  it("names the manifest, the tool and a bucket the options do not define", () => {
    const register = () =>
      registerFunctions(new McpServer({ name: "x", version: "1" }), tweets(), manifest, { rateLimits: { read: { calls: 1, perMs: 1 } } });
    expect(register).toThrow(
      expect.objectContaining({
        code: "UNKNOWN_BUCKET",
        message: `tweets.ts: tool "post_tweet" draws on the rate-limit bucket "write", which the options' rateLimits do not define`,
      }),
    );
  });
});

describe("registerFunctions options it cannot take", () => {
  const read = (limit: unknown) => ({ rateLimits: { read: limit, write: { calls: 1, perMs: 1 } } }) as RegisterFunctionsOptions;
  it.each([
    [read({ calls: 0, perMs: 1000 }), 'rate limit "read": calls must be a whole number ≥ 1, not 0'],
    [read({ calls: 1.5, perMs: 1000 }), 'rate limit "read": calls must be a whole number ≥ 1, not 1.5'],
    [read({ perMs: 1000 }), 'rate limit "read": calls must be a whole number ≥ 1, not undefined'],
    [read({ calls: 2, perMs: 0 }), 'rate limit "read": perMs must be a finite number > 0, not 0'],
    [read({ calls: 2, perMs: Number.POSITIVE_INFINITY }), 'rate limit "read": perMs must be a finite number > 0, not Infinity'],
    [read({ calls: 2, perMs: "1000" }), 'rate limit "read": perMs must be a finite number > 0, not "1000"'],
    [read(null), 'rate limit "read" must be { calls, perMs }, not null'],
    [{ listing: { top: 0 } }, "listing top must be a whole number ≥ 1, not 0"],
    [{ listing: "fast" }, 'listing must be "all", "basic" or { top: N }, not "fast"'],
  ])("%j: %s", (options, message) => {
    const register = () =>
      registerFunctions(new McpServer({ name: "x", version: "1" }), tweets(), manifest, options as RegisterFunctionsOptions);
    expect(register).toThrow(expect.objectContaining({ code: "INVALID_OPTIONS", message: `registerFunctions: ${message}` }));
  });
});

describe("registerFunctions checks own properties only", () => {
  it('a required "constructor" is not met by {}, and an optional "toString" left out of a result is left out', async () => {
    const server = new McpServer({ name: "keys", version: "1.0.0" });
    const keys: ToolManifest = {
      version: 1,
      source: "keys.ts",
      tools: [
        {
          name: "named",
          function: "named",
          inputSchema: { type: "object", properties: { constructor: { type: "string" } }, required: ["constructor"] },
          outputSchema: { type: "object", properties: { toString: { type: "string" }, n: { type: "number" } } },
        },
      ],
    };
    registerFunctions(server, { named: async () => ({ n: 1 }) }, keys);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "test", version: "1.0.0" });
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    opened.push(client);
    expect(await client.callTool({ name: "named", arguments: {} })).toEqual({
      ...text("Invalid arguments for tool named: constructor: is required"),
      isError: true,
    });
    expect(await client.callTool({ name: "named", arguments: { constructor: "x" } })).toEqual({
      ...text('{"n":1}'),
      structuredContent: { n: 1 },
    });
  });
});
