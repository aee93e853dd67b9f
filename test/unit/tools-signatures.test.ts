import { Client } from "@modelcontextprotocol/client";
import { type CallToolResult, InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ManifestTool, registerFunctions, ToolDefinitionError, type ToolManifest } from "../../src/server/index.js";
import { fromSource, type ReadModule } from "../helpers/from-source.js";

/** Signatures as written: positional parameters with defaults, `@returns`, tool tags, and tools as methods of a class. */
const text = [
  `const DEFAULT_LIMIT = 20;`,
  `/**`,
  ` * Searches the docs.`,
  ` * @param query What to look for.`,
  ` * @param limit At most this many hits.`,
  ` * @returns The titles of the hits, best first.`,
  ` * @category read`,
  ` * @phase basic`,
  ` * @popularity 10`,
  ` * @rateLimit search`,
  ` */`,
  `export async function searchDocs(query: string, /** @maximum 100 */ limit = DEFAULT_LIMIT, exact?: boolean): Promise<string[]> {`,
  "  return [`${query}:${limit}:${exact ?? false}`];",
  `}`,
  `/**`,
  ` * Counts words.`,
  ` * @returns The count.`,
  ` * @categroy text`,
  ` * @minimum 0`,
  ` */`,
  `export async function countWords({ text, separator = "-" }: { text: string; separator?: string }): Promise<{ words: number }> {`,
  `  return { words: text.split(separator).length };`,
  `}`,
  `export let constructed = 0;`,
  `export class Notes {`,
  `  private readonly notes: string[] = [];`,
  `  constructor() {`,
  `    constructed += 1;`,
  `  }`,
  `  /**`,
  `   * Adds a note.`,
  `   * @category write`,
  `   * @popularity 3`,
  `   */`,
  `  async addNote(text: string, pinned = false): Promise<{ count: number }> {`,
  "    this.notes.push(pinned ? `!${text}` : text);",
  `    return { count: this.notes.length };`,
  `  }`,
  `  /** All notes, oldest first. */`,
  `  listNotes = async (): Promise<{ notes: string[] }> => ({ notes: [...this.notes] });`,
  `  private async secret(): Promise<number> {`,
  `    return this.size();`,
  `  }`,
  `  static async make(): Promise<void> {}`,
  `  size(): number {`,
  `    void this.secret;`,
  `    return this.notes.length;`,
  `  }`,
  `}`,
  `export class Remote {`,
  `  constructor(readonly base: string) {}`,
  `  /** Joins a path to the remote's base. */`,
  `  async fetchPath(path: string): Promise<{ url: string }> {`,
  "    return { url: `${this.base}/${path}` };",
  `  }`,
  `}`,
  `export async function createRemote(): Promise<Remote> {`,
  `  return new Remote("https://example.test");`,
  `}`,
  "",
].join("\n");

describe("tools from signatures as written", () => {
  let read: ReadModule;
  beforeAll(async () => {
    read = await fromSource("signatures.ts", text);
  });

  it("reads positional parameters, defaults, @returns, tool tags and class methods, with no problems", () => {
    expect(read.problems).toEqual([]);
    expect(read.manifest.tools).toEqual([
      {
        name: "search_docs",
        function: "searchDocs",
        parameters: ["query", "limit", "exact"],
        description: "Searches the docs.\n\nReturns: The titles of the hits, best first.",
        inputSchema: {
          type: "object",
          properties: {
            query: { description: "What to look for.", type: "string" },
            limit: { description: "At most this many hits.", type: "number", maximum: 100, default: 20 },
            exact: { type: "boolean" },
          },
          required: ["query"],
          additionalProperties: false,
        },
        _meta: { "pmcp/category": "read", "pmcp/phase": "basic", "pmcp/popularity": 10, "pmcp/rateLimit": "search" },
      },
      {
        name: "count_words",
        function: "countWords",
        description: "Counts words.",
        inputSchema: {
          type: "object",
          properties: { text: { type: "string" }, separator: { type: "string", default: "-" } },
          required: ["text"],
          additionalProperties: false,
        },
        outputSchema: {
          description: "The count.",
          type: "object",
          properties: { words: { type: "number" } },
          required: ["words"],
          additionalProperties: false,
        },
      },
      {
        name: "add_note",
        function: "addNote",
        class: { name: "Notes" },
        parameters: ["text", "pinned"],
        description: "Adds a note.",
        inputSchema: {
          type: "object",
          properties: { text: { type: "string" }, pinned: { type: "boolean", default: false } },
          required: ["text"],
          additionalProperties: false,
        },
        outputSchema: { type: "object", properties: { count: { type: "number" } }, required: ["count"], additionalProperties: false },
        _meta: { "pmcp/category": "write", "pmcp/popularity": 3 },
      },
      {
        name: "list_notes",
        function: "listNotes",
        class: { name: "Notes" },
        description: "All notes, oldest first.",
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
        outputSchema: {
          type: "object",
          properties: { notes: { type: "array", items: { type: "string" } } },
          required: ["notes"],
          additionalProperties: false,
        },
      },
      {
        name: "fetch_path",
        function: "fetchPath",
        class: { name: "Remote", factory: "createRemote" },
        parameters: ["path"],
        description: "Joins a path to the remote's base.",
        inputSchema: { type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false },
        outputSchema: { type: "object", properties: { url: { type: "string" } }, required: ["url"], additionalProperties: false },
      },
    ]);
  });

  it("warns of a misspelt tag and of a constraint on the tool, naming file and line", () => {
    expect(read.warnings).toEqual([
      {
        file: read.file,
        line: read.lineOf("@categroy"),
        column: 4,
        message: "countWords: unknown tag @categroy is ignored (did you mean @category?)",
      },
      {
        file: read.file,
        line: read.lineOf("@minimum 0"),
        column: 4,
        message: "countWords: @minimum is ignored here: a constraint goes on the parameter or property it limits",
      },
    ]);
  });

  describe("served by registerFunctions", () => {
    let module: Record<string, unknown> & { constructed: number };
    let client: Client;
    let second: Client;
    const connect = async (): Promise<Client> => {
      const server = new McpServer({ name: "signatures", version: "1.0.0" });
      registerFunctions(server, module, read.manifest, { rateLimits: { search: { calls: 1000, perMs: 1 } } });
      const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
      await server.connect(serverTransport);
      const connected = new Client({ name: "test", version: "1.0.0" });
      await connected.connect(clientTransport);
      return connected;
    };
    beforeAll(async () => {
      module = await import(read.path);
      client = await connect();
      second = await connect();
    });
    afterAll(async () => {
      await client.close();
      await second.close();
    });
    const call = async (name: string, args: Record<string, unknown>, by = client) =>
      (await by.callTool({ name, arguments: args })) as CallToolResult;

    it("calls positional parameters in order, leaving missing ones to the function's defaults", async () => {
      expect(await call("search_docs", { exact: true, query: "mcp" })).toEqual({ content: [{ type: "text", text: '["mcp:20:true"]' }] });
      expect(await call("search_docs", { query: "mcp", limit: 3 })).toEqual({ content: [{ type: "text", text: '["mcp:3:false"]' }] });
    });

    it("refuses a positional argument past its constraint, naming it", async () => {
      expect(await call("search_docs", { query: "mcp", limit: 101 })).toEqual({
        content: [{ type: "text", text: "Invalid arguments for tool search_docs: limit: must be <= 100" }],
        isError: true,
      });
    });

    it("gives a destructured property its default", async () => {
      expect((await call("count_words", { text: "a-b-c" })).structuredContent).toEqual({ words: 3 });
    });

    it("runs methods on one instance of the class, constructed once for every server of the module", async () => {
      expect((await call("add_note", { text: "first" })).structuredContent).toEqual({ count: 1 });
      expect((await call("add_note", { text: "second", pinned: true }, second)).structuredContent).toEqual({ count: 2 });
      expect((await call("list_notes", {})).structuredContent).toEqual({ notes: ["first", "!second"] });
      expect(module.constructed).toBe(1);
    });

    it("builds a class from its exported factory, awaited", async () => {
      expect((await call("fetch_path", { path: "docs" })).structuredContent).toEqual({ url: "https://example.test/docs" });
    });
  });
});

describe("tools from source: what is refused, warned about, or read from the class", () => {
  const edge = [
    `/**`,
    ` * Read tools.`,
    ` * @category read`,
    ` * @rateLimit read`,
    ` * @readOnly`,
    ` * @outputTypeName Nope`,
    ` * @categroy typo`,
    ` */`,
    `export class ReadTools {`,
    `  /** One. */`,
    `  async one(id: string): Promise<{ id: string }> {`,
    `    return { id };`,
    `  }`,
    `  /**`,
    `   * Two, in another category.`,
    `   * @category special`,
    `   * @destructive`,
    `   */`,
    `  async two(): Promise<void> {}`,
    `}`,
    `export class User {`,
    `  constructor(readonly name: string) {}`,
    `}`,
    `export async function createUser(name: string): Promise<{ name: string }> {`,
    `  return { name };`,
    `}`,
    `export class Db {`,
    `  constructor(readonly url: string) {}`,
    `  async query(q: string): Promise<{ q: string }> {`,
    `    return { q };`,
    `  }`,
    `}`,
    `export function createDb(url: string): Db {`,
    `  return new Db(url);`,
    `}`,
    `export class Cache {`,
    `  async get(k: string): Promise<{ k: string }> {`,
    `    return { k };`,
    `  }`,
    `}`,
    `export function createCache(): string {`,
    `  return "";`,
    `}`,
    `export class Spread {`,
    `  constructor(..._parts: string[]) {}`,
    `  async spread(): Promise<void> {}`,
    `}`,
    `export async function nullableObject(input: { a: number } | null): Promise<number> {`,
    `  return input?.a ?? 0;`,
    `}`,
    `/**`,
    ` * @arg q The query.`,
    ` * @override`,
    ` * @exception never`,
    ` */`,
    `export async function withThis(this: void, { limit = 20, q }: { limit?: number; q: string }): Promise<string> {`,
    "  return `${q}${limit}`;",
    `}`,
    `/**`,
    ` * @param filters.minPrice Lowest price.`,
    ` * @param limt At most.`,
    ` */`,
    `export async function nested(query: string, filters: { minPrice?: number }, limit = 5): Promise<string> {`,
    "  return `${query}${filters.minPrice}${limit}`;",
    `}`,
    `/**`,
    ` * @popularity -3.5`,
    ` * @phase Basic`,
    ` * @category read write`,
    ` * @rateLimit a`,
    ` * @rateLimit b`,
    ` */`,
    `export async function oddTags(/** @format emial */ email: string, /** @maximum 0x10 */ n: number): Promise<string> {`,
    "  return `${email}${n}`;",
    `}`,
    `export async function proto(__proto__: string): Promise<string> {`,
    `  return __proto__;`,
    `}`,
    "",
  ].join("\n");
  let read: ReadModule;
  beforeAll(async () => {
    read = await fromSource("edge.ts", edge);
  });
  const at = (marker: string, column: number, message: string) => ({ file: read.file, line: read.lineOf(marker), column, message });

  it("refuses factories that cannot make the instance, and tag values a tag cannot take", () => {
    expect(read.problems).toEqual([
      at("export function createDb", 1, "createDb, the factory of Db, takes arguments: it is called with none"),
      at("export function createCache", 1, "createCache, the factory of Cache, returns string, not Cache or a promise of one"),
      at("@category read write", 4, 'oddTags: @category "read write": one name is expected'),
      at("@rateLimit b", 4, "oddTags: @rateLimit is given twice: a tool has one"),
      at(
        "@format emial",
        52,
        'oddTags.input.email: @format "emial": validation checks strings against no such format (did you mean email?)',
      ),
      at("@format emial", 88, 'oddTags.input.n: @maximum "0x10": a number is expected'),
      at("function proto", 29, "proto: a parameter named __proto__ cannot be an argument: rename it"),
    ]);
  });

  it("warns of a class's tag that means nothing on it, a @param that names nothing, and a phase in the wrong case", () => {
    expect(read.warnings).toEqual([
      at("@outputTypeName Nope", 4, "ReadTools: @outputTypeName names one tool's result: it goes on the method"),
      at("@categroy typo", 4, "ReadTools: unknown tag @categroy is ignored (did you mean @category?)"),
      at("@param limt", 4, "nested: @param limt names no argument and is ignored (did you mean limit?)"),
      at("@phase Basic", 4, 'oddTags: @phase Basic: only "basic", in lower case, marks the first listing'),
    ]);
  });

  it("gives a class's tags and hints to each method, the method's own winning (its hints replacing the class's)", () => {
    const [one, two] = read.manifest.tools;
    expect([one?.annotations, one?._meta]).toEqual([{ readOnlyHint: true }, { "pmcp/category": "read", "pmcp/rateLimit": "read" }]);
    expect([two?.annotations, two?._meta]).toEqual([{ destructiveHint: true }, { "pmcp/category": "special", "pmcp/rateLimit": "read" }]);
  });

  it("keeps create<Name> a tool when the class Name has no tools, and builds a class whose constructor takes only a rest parameter", () => {
    expect(read.manifest.tools.map((tool) => [tool.name, tool.class?.name ?? null])).toEqual([
      ["one", "ReadTools"],
      ["two", "ReadTools"],
      ["create_user", null],
      ["spread", "Spread"],
      ["nullable_object", null],
      ["with_this", null],
      ["nested", null],
      ["odd_tags", null],
    ]);
  });

  it("reads a nullable object as one positional argument, skips `this`, and keys a positional object's @param by its path", () => {
    const tool = (name: string) => read.manifest.tools.find((candidate) => candidate.name === name);
    expect(tool("nullable_object")?.inputSchema).toEqual({
      type: "object",
      properties: {
        input: { type: ["object", "null"], properties: { a: { type: "number" } }, required: ["a"], additionalProperties: false },
      },
      required: ["input"],
      additionalProperties: false,
    });
    expect(tool("with_this")?.inputSchema.properties).toEqual({
      limit: { type: "number", default: 20 },
      q: { description: "The query.", type: "string" },
    });
    expect(tool("nested")?.inputSchema.properties?.filters).toEqual({
      type: "object",
      properties: { minPrice: { description: "Lowest price.", type: "number" } },
      additionalProperties: false,
    });
    expect(tool("odd_tags")?._meta).toEqual({ "pmcp/popularity": -3.5, "pmcp/phase": "Basic", "pmcp/rateLimit": "a" });
  });
});

describe("tools from source: the second review's cases", () => {
  const text = [
    `/**`,
    ` * Writes.`,
    ` * @implements {Api}`,
    ` * @readOnly`,
    ` * @category write`,
    ` */`,
    `export class Writer {`,
    `  /**`,
    `   * Deletes.`,
    `   * @destructive`,
    `   */`,
    `  async remove(id: string): Promise<string> {`,
    `    return id;`,
    `  }`,
    `  /** @private */`,
    `  async helper(): Promise<void> {}`,
    `}`,
    `/** @internal */`,
    `export async function internalTool(): Promise<void> {}`,
    `/**`,
    ` * @param options - the options`,
    ` * @param options.query What to find.`,
    ` * @readonly`,
    ` */`,
    `export async function find({ query, limit = 20 }: { query: string; limit?: number }): Promise<string> {`,
    "  return `${query}${limit}`;",
    `}`,
    `/** @param shape.radius The radius. */`,
    `export async function area(shape: { kind: "circle"; radius: number } | { kind: "square"; side: number }): Promise<number> {`,
    `  return shape.kind === "circle" ? shape.radius : shape.side;`,
    `}`,
    `/** @popularity 1e400 */`,
    `export async function huge(/** @maximum 1e400 */ n: number, scale = 1e400, /** @format password */ secret = ""): Promise<string> {`,
    "  return `${n}${scale}${secret}`;",
    `}`,
    "",
  ].join("\n");
  let read: ReadModule;
  beforeAll(async () => {
    read = await fromSource("review.ts", text);
  });
  const at = (marker: string, column: number, message: string) => ({ file: read.file, line: read.lineOf(marker), column, message });

  it("leaves out what JSDoc keeps out of the public API, and lets a method's hints replace its class's", () => {
    expect(read.manifest.tools.map((tool) => [tool.name, tool.annotations ?? null, tool._meta ?? null])).toEqual([
      ["remove", { destructiveHint: true }, { "pmcp/category": "write" }],
      ["find", null, null],
      ["area", null, null],
      ["huge", null, null],
    ]);
  });

  it("refuses numbers past JSON's range and formats that check no string; a default past it is left out", () => {
    expect(read.problems).toEqual([
      at("@popularity 1e400", 5, 'huge: @popularity "1e400": a number is expected'),
      at("export async function huge", 50, 'huge.input.n: @maximum "1e400": a number is expected'),
      at("export async function huge", 100, 'huge.input.secret: @format "password": validation checks strings against no such format'),
    ]);
    expect(read.manifest.tools.at(-1)?.inputSchema.properties?.scale).toEqual({ type: "number" });
  });

  it("takes `@param options` of a destructured parameter for the whole, reads union members' properties, and knows class tags", () => {
    expect(read.warnings).toEqual([at("@readonly", 4, "find: unknown tag @readonly is ignored (did you mean @readOnly?)")]);
    expect(read.manifest.tools.find((tool) => tool.name === "find")?.inputSchema.properties?.query).toEqual({
      description: "What to find.",
      type: "string",
    });
  });
});

describe("registerFunctions: a class's instance", () => {
  const manifest = (tools: ManifestTool[]): ToolManifest => ({ version: 1, source: "db.ts", tools });
  const query: ManifestTool = {
    name: "query",
    function: "query",
    class: { name: "Db", factory: "createDb" },
    parameters: ["q"],
    inputSchema: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
  };

  it("answers with a factory's failure, keeps the server, and tries the factory again at each call until it succeeds", async () => {
    let attempts = 0;
    class Db {
      async query(q: string) {
        return `${q}!`;
      }
    }
    const module = {
      Db,
      createDb: async () => {
        attempts++;
        if (attempts <= 2) throw new Error("db down");
        return new Db();
      },
    };
    const server = new McpServer({ name: "db", version: "1.0.0" });
    registerFunctions(server, module, manifest([query]));
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "test", version: "1.0.0" });
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    const call = async () => (await client.callTool({ name: "query", arguments: { q: "x" } })) as CallToolResult;
    expect(await call()).toEqual({ content: [{ type: "text", text: "createDb failed: db down" }], isError: true });
    expect(await call()).toEqual({ content: [{ type: "text", text: "x!" }] });
    // Once at registration, failed; once for each call.
    expect(attempts).toBe(3);
    await client.close();
  });

  it("refuses at registration a method the instance lacks, and a manifest that is not one", () => {
    class Db {}
    const server = () => new McpServer({ name: "db", version: "1.0.0" });
    expect(() => registerFunctions(server(), { Db }, manifest([{ ...query, class: { name: "Db" } }]))).toThrow(
      new ToolDefinitionError("MISSING_FUNCTION", 'db.ts: tool "query" needs the method "query", which Db lacks'),
    );
    expect(() => registerFunctions(server(), { Db }, "db.tools.json" as unknown as ToolManifest)).toThrow(
      /^registerFunctions: the manifest: /,
    );
    expect(() => registerFunctions(server(), { Db }, manifest([query, query]))).toThrow(
      new ToolDefinitionError("INVALID_MANIFEST", 'registerFunctions: db.ts at tools[1].name: tool "query" is listed twice'),
    );
    expect(() => registerFunctions(server(), { Db }, manifest([{ ...query, parameters: ["__proto__"] }]))).toThrow(
      new ToolDefinitionError(
        "INVALID_MANIFEST",
        "registerFunctions: db.ts at tools[0].parameters[0]: __proto__ cannot be an argument's name",
      ),
    );
  });
});
