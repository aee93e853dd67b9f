import { Client } from "@modelcontextprotocol/client";
import { type CallToolResult, InMemoryTransport, McpServer } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerFunctions } from "../src/server/index.js";
import { fromSource, type ReadModule } from "./helpers/from-source.js";

/** Seed 002's shapes: positional parameters with defaults, `@returns`, its tags, and tools as methods of a class. */
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

  it("reads positional parameters, defaults, @returns, the seed's tags and class methods, with no problems", () => {
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
        inputSchema: { type: "object", properties: {} },
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
