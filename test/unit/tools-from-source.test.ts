import { Client } from "@modelcontextprotocol/client";
import { type CallToolResult, InMemoryTransport, McpServer, ProtocolErrorCode } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import * as catalog from "../../examples/tools/catalog.js";
import { type ManifestTool, registerFunctions, type ToolManifest, ToolManifestSchema } from "../../src/server/index.js";
import { type FromSourceResult, snakeCase, toolsFromSource } from "../../src/tools/from-source.js";
import { fromSource } from "../helpers/from-source.js";

const CATALOG = "examples/tools/catalog.ts";
const dimensions = {
  type: "object",
  properties: {
    widthCm: { description: "Width in centimetres.", type: "number" },
    heightCm: { type: "number" },
    depthCm: { type: "number" },
  },
  required: ["widthCm", "heightCm", "depthCm"],
  additionalProperties: false,
};
const category = { type: "string", enum: ["tools", "garden", "kitchen"] };
const product = {
  type: "object",
  properties: {
    sku: { description: 'Stock-keeping unit, e.g. "HAM-001".', type: "string" },
    name: { type: "string" },
    category,
    dimensions,
    lastRestocked: { description: "Null when the product has never been restocked.", type: ["string", "null"], format: "date-time" },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["sku", "name", "category", "dimensions", "lastRestocked", "tags"],
  additionalProperties: false,
};

const expectedCatalog: Omit<ManifestTool, "function">[] = [
  {
    name: "get_stock_level",
    description: "Looks up one product and how many units each warehouse holds.",
    inputSchema: {
      type: "object",
      properties: {
        sku: { description: 'The product\'s SKU, e.g. "HAM-001".', type: "string" },
        warehouse: { description: "Only count this warehouse.", type: "string" },
      },
      required: ["sku"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        product,
        byWarehouse: { description: "Units on hand per warehouse code.", type: "object", additionalProperties: { type: "number" } },
        total: { type: "number" },
      },
      required: ["product", "byWarehouse", "total"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, "pmcp:outputTypeName": "StockLevel" },
    _meta: { "pmcp/category": "stock", "pmcp/phase": "basic", "pmcp/popularity": 9 },
  },
  {
    name: "list_products",
    description: "Lists catalogue products, optionally of one category.",
    inputSchema: {
      type: "object",
      properties: {
        category,
        limit: { description: "At most this many products; null for all.", type: ["number", "null"] },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: { products: { type: "array", items: product } },
      required: ["products"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    _meta: { "pmcp/category": "catalogue", "pmcp/phase": "basic", "pmcp/popularity": 7 },
  },
  {
    name: "search_products",
    parameters: ["query", "limit", "inStockOnly"],
    description: "Searches product names and tags, case-insensitively.",
    inputSchema: {
      type: "object",
      properties: {
        query: { description: "Words to look for.", type: "string", minLength: 1 },
        limit: { description: "At most this many products.", type: "number", minimum: 1, maximum: 50, default: 10 },
        inStockOnly: { description: "Leave out products no warehouse holds.", type: "boolean", default: false },
      },
      required: ["query"],
      additionalProperties: false,
    },
    outputSchema: {
      description: "The matching products, in catalogue order.",
      type: "object",
      properties: { products: { type: "array", items: product } },
      required: ["products"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    _meta: { "pmcp/category": "catalogue", "pmcp/phase": "basic", "pmcp/popularity": 10 },
  },
  {
    name: "place_restock_order",
    description: "Orders more units of a product from its supplier.",
    inputSchema: {
      type: "object",
      properties: {
        sku: { type: "string" },
        lines: {
          type: "array",
          items: {
            type: "object",
            properties: { warehouse: { type: "string" }, quantity: { type: "number" } },
            required: ["warehouse", "quantity"],
            additionalProperties: false,
          },
        },
        deliveryWindow: {
          description: "Earliest and latest acceptable delivery.",
          type: "array",
          prefixItems: [
            { type: "string", format: "date-time" },
            { type: "string", format: "date-time" },
          ],
          minItems: 2,
          maxItems: 2,
        },
        priority: { type: "string", enum: ["normal", "urgent"] },
        note: { type: ["string", "null"] },
      },
      required: ["sku", "lines", "deliveryWindow", "priority"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        orderId: { type: "string" },
        placedAt: { type: "string", format: "date-time" },
        windowDays: { description: "Days from the start of the delivery window to its end.", type: "number" },
        unitsOrdered: { type: "number" },
      },
      required: ["orderId", "placedAt", "windowDays", "unitsOrdered"],
      additionalProperties: false,
    },
    annotations: { openWorldHint: true },
    _meta: { "pmcp/category": "orders", "pmcp/popularity": 5, "pmcp/rateLimit": "supplier" },
  },
  {
    name: "discontinue_product",
    description: "Removes a product from the catalogue; refuses while any warehouse still holds it.",
    inputSchema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"], additionalProperties: false },
    annotations: { destructiveHint: true, idempotentHint: true },
    _meta: { "pmcp/category": "catalogue", "pmcp/popularity": 1 },
  },
  {
    name: "quote_restock",
    class: { name: "Suppliers", factory: "createSuppliers" },
    parameters: ["sku", "quantity"],
    description: "Asks the product's supplier for a price; the supplier's API allows few calls, shared with placing orders.",
    inputSchema: {
      type: "object",
      properties: {
        sku: { description: "The product to quote.", type: "string" },
        quantity: { description: "How many units.", type: "number", minimum: 1, default: 10 },
      },
      required: ["sku"],
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        sku: { type: "string" },
        quantity: { type: "number" },
        supplier: { type: "string" },
        totalCents: { description: "Price of the whole quantity, in cents.", type: "number" },
        leadDays: { type: "number" },
      },
      required: ["sku", "quantity", "supplier", "totalCents", "leadDays"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, openWorldHint: true },
    _meta: { "pmcp/category": "orders", "pmcp/popularity": 4, "pmcp/rateLimit": "supplier" },
  },
  {
    name: "supplier_of",
    class: { name: "Suppliers", factory: "createSuppliers" },
    parameters: ["sku"],
    description: "Who supplies a product.",
    inputSchema: { type: "object", properties: { sku: { type: "string" } }, required: ["sku"], additionalProperties: false },
    outputSchema: {
      type: "object",
      properties: { sku: { type: "string" }, supplier: { type: ["string", "null"] } },
      required: ["sku", "supplier"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    _meta: { "pmcp/category": "orders", "pmcp/popularity": 2 },
  },
  {
    name: "low_stock",
    class: { name: "Reports" },
    parameters: ["threshold"],
    description: "Products whose total stock is at or below a threshold, lowest first.",
    inputSchema: {
      type: "object",
      properties: {
        threshold: { description: "Units at or below which a product counts as low.", type: "number", minimum: 0, default: 5 },
      },
      additionalProperties: false,
    },
    outputSchema: {
      type: "object",
      properties: {
        items: {
          type: "array",
          items: {
            type: "object",
            properties: { sku: { type: "string" }, total: { type: "number" } },
            required: ["sku", "total"],
            additionalProperties: false,
          },
        },
      },
      required: ["items"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    _meta: { "pmcp/category": "reports", "pmcp/popularity": 3 },
  },
  {
    name: "category_counts",
    class: { name: "Reports" },
    description: "How many catalogue products each category holds.",
    inputSchema: { type: "object", properties: {}, additionalProperties: false },
    outputSchema: {
      type: "object",
      properties: { counts: { type: "object", additionalProperties: { type: "number" } } },
      required: ["counts"],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true },
    _meta: { "pmcp/category": "reports" },
  },
];

describe("toolsFromSource: the example catalogue", () => {
  let result: FromSourceResult;
  beforeAll(() => {
    result = toolsFromSource(CATALOG);
  });

  it("finds the exported async functions and the async methods of exported classes, in source order, and no problems", () => {
    expect(result.problems).toEqual([]);
    expect(result.manifest.version).toBe(1);
    expect(result.manifest.source).toBe(CATALOG);
    expect(result.manifest.tools.map((tool) => [tool.name, tool.function])).toEqual([
      ["get_stock_level", "getStockLevel"],
      ["list_products", "listProducts"],
      ["search_products", "searchProducts"],
      ["place_restock_order", "placeRestockOrder"],
      ["discontinue_product", "discontinueProduct"],
      ["quote_restock", "quoteRestock"],
      ["supplier_of", "supplierOf"],
      ["low_stock", "lowStock"],
      ["category_counts", "categoryCounts"],
    ]);
  });

  it.each(expectedCatalog.map((tool) => [tool.name, tool] as const))("%s: description, schemas and annotations", (name, expected) => {
    const { function: _function, ...tool } = result.manifest.tools.find((candidate) => candidate.name === name)!;
    expect(tool).toEqual(expected);
  });

  it("is a valid manifest", () => expect(ToolManifestSchema.parse(result.manifest)).toEqual(result.manifest));
});

describe("toolsFromSource: signatures and types without a JSON Schema form", () => {
  const text = [
    `class Owner { name = ""; }`,
    `interface TreeNode { label: string; children: TreeNode[] }`,
    `export interface Unsupported {`,
    `  stock: Map<string, number>;`,
    `  tags: Set<string>;`,
    `  count: bigint;`,
    `  key: symbol;`,
    `  onDone: () => void;`,
    `  owner: Owner;`,
    `  payload: any;`,
    `  extra: unknown;`,
    `  id: string & { __brand: "Id" };`,
    `  tree: TreeNode;`,
    `  byNumber: { [id: number]: string };`,
    `}`,
    `export async function unsupported(_args: Unsupported): Promise<void> {}`,
    `export async function generic<T>(_args: { value: T }): Promise<void> {}`,
    `export async function restParams(..._names: string[]): Promise<void> {}`,
    `export async function destructured({ a }: { a: string }, _b: number): Promise<string> { return a; }`,
    `export class NeedsArgs { constructor(readonly url: string) {} async ping(): Promise<void> {} }`,
    `export abstract class Abstract { async pong(): Promise<void> {} }`,
    `/** @popularity lots */ export async function popular(): Promise<void> {}`,
    `export async function badOutput(): Promise<{ when: Map<string, Date> }> { return { when: new Map() }; }`,
    `export function overloaded(args: { x: string }): Promise<void>;`,
    `export function overloaded(args: { y: number }): Promise<void>;`,
    `export async function overloaded(): Promise<void> {}`,
    `export async function getX(): Promise<void> {}`,
    `export async function get_x(): Promise<void> {}`,
    `export const broken: number = "not a number";`,
    "",
  ].join("\n");
  let read: Awaited<ReturnType<typeof fromSource>>;
  beforeAll(async () => {
    read = await fromSource("unsupported.ts", text);
  });

  it.each([
    ["Map", "stock: Map", "unsupported: input.stock: Map<string, number> has no JSON form: use an array or Record<string, T> instead"],
    ["Set", "tags: Set", "unsupported: input.tags: Set<string> has no JSON form"],
    ["bigint", "count: bigint", "unsupported: input.count: bigint has no JSON Schema form: JSON numbers are not bigints"],
    ["symbol", "key: symbol", "unsupported: input.key: symbol has no JSON Schema form"],
    ["a function", "onDone:", "unsupported: input.onDone: () => void is a function"],
    ["a class", "owner: Owner", "unsupported: input.owner: Owner is a class"],
    ["any", "payload: any", "unsupported: input.payload: any has no JSON Schema form: give the value a concrete type"],
    ["unknown", "extra: unknown", "unsupported: input.extra: unknown has no JSON Schema form"],
    ["an intersection with a primitive", "id: string &", 'unsupported: input.id: string & { __brand: "Id"; } cannot be flattened'],
    ["a recursive type", "interface TreeNode", "unsupported: input.tree.children[]: TreeNode is recursive"],
    ["number keys", "byNumber:", "unsupported: input.byNumber[key]: number keys are not supported"],
    [
      "an unresolved type parameter",
      "function generic",
      "generic: input.value: T has no JSON Schema form: a tool's types must not be generic",
    ],
    ["a rest parameter", "function restParams", "restParams: a rest parameter cannot be a named argument: take an array instead"],
    [
      "a destructured positional parameter",
      "function destructured",
      "destructured: parameter 1 is destructured: only a tool's single object parameter may be",
    ],
    [
      "a class constructed with arguments",
      "class NeedsArgs",
      "NeedsArgs: its constructor takes arguments: export a factory `createNeedsArgs()` that returns the instance",
    ],
    [
      "an abstract class",
      "class Abstract",
      "Abstract: an abstract class cannot be constructed: export a factory `createAbstract()` that returns the instance",
    ],
    ["a tag without a value it takes", "@popularity lots", 'popular: @popularity "lots": a number is expected'],
    ["an unsupported output", "function badOutput", "badOutput: output.when: Map<string, Date> has no JSON form"],
    ["overloads", "function overloaded(args: { x", "overloaded: overloaded functions are not supported"],
    ["a tool name taken twice", "function get_x", 'get_x: tool name "get_x" is already taken by getX'],
    ["a type error", "const broken", "Type 'string' is not assignable to type 'number'."],
  ])("%s is a problem at its declaration", (_construct, marker, message) => {
    const found = read.problems.find((problem) => problem.message.includes(message));
    expect(found, `no problem "${message}" in ${JSON.stringify(read.problems, null, 2)}`).toBeDefined();
    expect(found).toMatchObject({ file: read.file, line: read.lineOf(marker) });
  });

  it("reports nothing else and locates columns too", () => {
    expect(read.problems).toHaveLength(21);
    expect(read.problems.find((problem) => problem.message.includes("input.stock"))).toMatchObject({ line: 4, column: 3 });
  });

  it("keeps a tool with unsupported parts, with {} in their place, and skips tools it cannot call", () => {
    const tool = read.manifest.tools.find((candidate) => candidate.name === "unsupported");
    expect(tool?.inputSchema.properties).toMatchObject({ stock: {}, payload: {}, tree: { properties: { children: { items: {} } } } });
    expect(read.manifest.tools.map((candidate) => candidate.name)).toEqual(["unsupported", "generic", "popular", "bad_output", "get_x"]);
  });
});

describe("toolsFromSource: edge cases that are supported", () => {
  const text = [
    `/** Whole-number counts are still JSON numbers. */`,
    `export async function noParams(): Promise<{ ok: boolean }> { return { ok: true }; }`,
    `/** Text results need no output schema. */`,
    `export async function returnsText(args?: { name?: string }): Promise<string> { return args?.name ?? ""; }`,
    `export function syncHelper(): number { return 1; }`,
    `export default async function unnamed(): Promise<void> {}`,
    `enum Level { Low = "low", High = "high" }`,
    `type Base = { id: string };`,
    `/** @param args.meta.source Where the event came from. */`,
    `export const record = async (args: Base & { level: Level; tries: [number, ...string[]]; flags: boolean | null; meta: { source: string } | null }): Promise<Base> => args;`,
    `async function hidden(): Promise<void> {}`,
    `export { hidden as exposedHelper };`,
    "",
  ].join("\n");
  let read: Awaited<ReturnType<typeof fromSource>>;
  beforeAll(async () => {
    read = await fromSource("supported.ts", text);
  });

  it("has no problems", () => expect(read.problems).toEqual([]));

  it("turns only named exports returning a promise into tools, re-exports by their export name", () => {
    expect(read.manifest.tools.map((tool) => [tool.name, tool.function])).toEqual([
      ["no_params", "noParams"],
      ["returns_text", "returnsText"],
      ["record", "record"],
      ["exposed_helper", "exposedHelper"],
    ]);
  });

  it("gives a function without parameters an input schema that takes no arguments", () => {
    expect(read.manifest.tools[0]).toEqual({
      name: "no_params",
      function: "noParams",
      description: "Whole-number counts are still JSON numbers.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      outputSchema: { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"], additionalProperties: false },
    });
  });

  it("gives a non-object result no output schema, and an optional parameter its object schema", () => {
    expect(read.manifest.tools[1]?.outputSchema).toBeUndefined();
    expect(read.manifest.tools[1]?.inputSchema).toEqual({
      type: "object",
      properties: { name: { type: "string" } },
      additionalProperties: false,
    });
  });

  it("flattens intersections and converts enums, rest tuples, nullable booleans and nullable objects", () => {
    expect(read.manifest.tools[2]?.inputSchema).toEqual({
      type: "object",
      properties: {
        id: { type: "string" },
        level: { type: "string", enum: ["low", "high"] },
        tries: { type: "array", prefixItems: [{ type: "number" }], minItems: 1, items: { type: "string" } },
        flags: { type: ["boolean", "null"] },
        meta: {
          type: ["object", "null"],
          properties: { source: { description: "Where the event came from.", type: "string" } },
          required: ["source"],
          additionalProperties: false,
        },
      },
      required: ["id", "level", "tries", "flags", "meta"],
      additionalProperties: false,
    });
  });

  it.each([
    ["getStockLevel", "get_stock_level"],
    ["parseHTTPHeader", "parse_http_header"],
    ["toV2", "to_v2"],
    ["already_snake", "already_snake"],
  ])("snakeCase(%s) is %s", (given, want) => expect(snakeCase(given)).toBe(want));

  it("names a missing file as a usage error", () =>
    expect(() => toolsFromSource("no/such/module.ts")).toThrow("no/such/module.ts: no such file"));
});

describe("registerFunctions: the catalogue served over MCP", () => {
  let manifest: ToolManifest;
  let client: Client;
  beforeAll(async () => {
    manifest = toolsFromSource(CATALOG).manifest;
    const server = new McpServer({ name: "catalog", version: "1.0.0" });
    registerFunctions(server, catalog, manifest, { rateLimits: { supplier: { calls: 1000, perMs: 1 } } });
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(clientTransport);
  });
  afterAll(async () => client.close());

  const call = async (name: string, args: Record<string, unknown>): Promise<CallToolResult> =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = (result: CallToolResult): string => (result.content?.[0]?.type === "text" ? result.content[0].text : "");

  it("lists exactly the manifest's tools and schemas", async () => {
    // A raw request: Client.listTools() would drop the pmcp:outputTypeName annotation.
    const listed = await client.request({ method: "tools/list" }, z.looseObject({ tools: z.array(z.unknown()) }));
    expect(listed.tools).toEqual(manifest.tools.map(({ function: _function, class: _class, parameters: _parameters, ...tool }) => tool));
    // The SDK client accepts the listing too, and from now on checks structured results against it.
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(manifest.tools.map((tool) => tool.name));
  });

  it("returns structuredContent and the same JSON as text", async () => {
    const result = await call("get_stock_level", { sku: "HAM-001" });
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({
      product: {
        sku: "HAM-001",
        name: "Claw hammer",
        category: "tools",
        dimensions: { widthCm: 12, heightCm: 33, depthCm: 3 },
        lastRestocked: "2026-10-01T08:00:00.000Z",
        tags: ["steel", "bestseller"],
      },
      byWarehouse: { north: 12, south: 3 },
      total: 15,
    });
    expect(JSON.parse(text(result))).toEqual(result.structuredContent);
  });

  it("hands Date parameters to the function as Dates", async () => {
    const result = await call("place_restock_order", {
      sku: "HAM-001",
      lines: [
        { warehouse: "north", quantity: 5 },
        { warehouse: "south", quantity: 2 },
      ],
      deliveryWindow: ["2026-12-01T00:00:00Z", "2026-12-08T00:00:00Z"],
      priority: "urgent",
    });
    expect(result.structuredContent).toEqual({
      orderId: "RO-HAM-001-2",
      placedAt: "2026-11-22T12:00:00.000Z",
      windowDays: 7,
      unitsOrdered: 7,
    });
  });

  it.each([
    ["a wrong type", "get_stock_level", { sku: 42 }, "sku: must be string"],
    ["a missing field", "get_stock_level", {}, "sku: is required"],
    ["an unknown field", "get_stock_level", { sku: "HAM-001", colour: "red" }, "colour: is not allowed"],
    [
      "a nested field",
      "place_restock_order",
      {
        sku: "HAM-001",
        lines: [{ warehouse: "n", quantity: "5" }],
        deliveryWindow: ["2026-12-01T00:00:00Z", "2026-12-08T00:00:00Z"],
        priority: "normal",
      },
      "lines[0].quantity: must be number",
    ],
    ["a value outside the enum", "list_products", { category: "toys" }, 'category: must be one of "tools", "garden" or "kitchen"'],
    [
      "a malformed date",
      "place_restock_order",
      { sku: "HAM-001", lines: [], deliveryWindow: ["soon", "2026-12-08T00:00:00Z"], priority: "normal" },
      'deliveryWindow[0]: must match format "date-time"',
    ],
  ])("rejects %s with a tool error naming the field", async (_case, name, args, message) => {
    const result = await call(name, args);
    expect(result.isError).toBe(true);
    expect(text(result)).toBe(`Invalid arguments for tool ${name}: ${message}`);
  });

  it("turns an error thrown by the function into a tool error", async () => {
    const result = await call("discontinue_product", { sku: "HAM-001" });
    expect(result).toEqual({ content: [{ type: "text", text: "HAM-001 still has 15 units in stock" }], isError: true });
  });

  it("answers a void function with empty content", async () => {
    expect(await call("discontinue_product", { sku: "POT-010" })).toEqual({ content: [] });
    expect((await call("list_products", {})).structuredContent).toMatchObject({ products: [{ sku: "HAM-001" }] });
  });

  it("answers an unknown tool with the protocol error the SDK uses", async () => {
    await expect(client.callTool({ name: "no_such_tool", arguments: {} })).rejects.toMatchObject({
      code: ProtocolErrorCode.InvalidParams,
      message: expect.stringContaining("Tool no_such_tool not found"),
    });
  });

  it("refuses a manifest whose function the module does not export, with a ToolDefinitionError", () => {
    const register = () =>
      registerFunctions(new McpServer({ name: "x", version: "1" }), { getStockLevel: catalog.getStockLevel }, manifest);
    expect(register).toThrow(`${CATALOG}: tool "list_products" needs the function "listProducts", which the module does not export`);
    expect(register).toThrow(expect.objectContaining({ name: "ToolDefinitionError", code: "MISSING_FUNCTION" }));
  });
});

describe("registerFunctions: Date parameters wherever the schema puts them", () => {
  it("revives date-time strings behind a $ref and in a draft-07 tuple", async () => {
    const when = { type: "string", format: "date-time" };
    const manifest: ToolManifest = {
      version: 1,
      source: "dates.ts",
      tools: [
        {
          name: "span",
          function: "span",
          inputSchema: {
            $schema: "http://json-schema.org/draft-07/schema#",
            type: "object",
            properties: {
              at: { $ref: "#/definitions/When" },
              window: { type: "array", items: [when, { $ref: "#/definitions/When" }], additionalItems: false },
            },
            required: ["at", "window"],
            definitions: { When: when },
          },
        },
      ],
    };
    const seen: string[] = [];
    const span = async (args: { at: unknown; window: unknown[] }) => {
      for (const value of [args.at, ...args.window]) seen.push(value instanceof Date ? `Date ${value.toISOString()}` : typeof value);
      return "ok";
    };
    const server = new McpServer({ name: "dates", version: "1" });
    registerFunctions(server, { span }, manifest);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    const client = new Client({ name: "test", version: "1" });
    await Promise.all([server.connect(serverTransport), client.connect(clientTransport)]);
    const result = await client.callTool({
      name: "span",
      arguments: { at: "2026-12-01T00:00:00Z", window: ["2026-12-02T00:00:00Z", "2026-12-03T00:00:00Z"] },
    });
    await client.close();
    expect(result.isError).toBeUndefined();
    expect(seen).toEqual(["Date 2026-12-01T00:00:00.000Z", "Date 2026-12-02T00:00:00.000Z", "Date 2026-12-03T00:00:00.000Z"]);
  });
});

describe("constraints from JSDoc (the typescript-json-schema tags)", () => {
  const text = [
    `export async function searchDocs(args: {`,
    `  /**`,
    `   * What to look for.`,
    `   * @minLength 1`,
    `   * @maxLength 200`,
    `   */`,
    `  query: string;`,
    `  /**`,
    `   * @minimum 1`,
    `   * @maximum 100`,
    `   * @multipleOf 1`,
    `   */`,
    `  limit?: number;`,
    `  /** @pattern ^[a-z]+$ */`,
    `  lang?: string;`,
    `  /**`,
    `   * @minItems 1`,
    `   * @maxItems 3`,
    `   */`,
    `  tags?: string[];`,
    `}): Promise<{ hits: number }> {`,
    `  return { hits: args.limit ?? 0 };`,
    `}`,
    `export async function badTags(_args: {`,
    `  /** @minimum lots */`,
    `  n: number;`,
    `  /** @maxLength -1 */`,
    `  s: string;`,
    `  /** @pattern ( */`,
    `  p: string;`,
    `}): Promise<void> {}`,
    "",
  ].join("\n");
  let read: Awaited<ReturnType<typeof fromSource>>;
  let client: Client;
  beforeAll(async () => {
    read = await fromSource("constrained.ts", text);
    const module = (await import(read.path)) as Record<string, unknown>;
    const server = new McpServer({ name: "constrained", version: "1.0.0" });
    registerFunctions(server, module, read.manifest);
    const [clientTransport, serverTransport] = InMemoryTransport.createLinkedPair();
    await server.connect(serverTransport);
    client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(clientTransport);
  });
  afterAll(async () => client.close());

  it("puts each constraint on its property, beside the type and the description", () => {
    expect(read.manifest.tools[0]?.inputSchema).toEqual({
      type: "object",
      properties: {
        query: { description: "What to look for.", type: "string", minLength: 1, maxLength: 200 },
        limit: { type: "number", minimum: 1, maximum: 100, multipleOf: 1 },
        lang: { type: "string", pattern: "^[a-z]+$" },
        tags: { type: "array", items: { type: "string" }, minItems: 1, maxItems: 3 },
      },
      required: ["query"],
      additionalProperties: false,
    });
  });

  it("names a value a constraint cannot take, with file and line, and leaves it out", () => {
    const at = (marker: string, message: string) => ({ file: read.file, line: read.lineOf(marker), column: 3, message });
    expect(read.problems).toEqual([
      at("n: number;", 'badTags.input.n: @minimum "lots": a number is expected'),
      at("s: string;", 'badTags.input.s: @maxLength "-1": a whole number from 0 is expected'),
      at(
        "p: string;",
        'badTags.input.p: @pattern "(": a regular expression that can be matched in linear time (no lookaround, no backreference) is expected',
      ),
    ]);
    expect(read.manifest.tools[1]?.name).toBe("bad_tags");
    expect(read.manifest.tools[1]?.inputSchema).toEqual({
      type: "object",
      properties: { n: { type: "number" }, s: { type: "string" }, p: { type: "string" } },
      required: ["n", "s", "p"],
      additionalProperties: false,
    });
  });

  it("refuses a call past a constraint, naming the argument, and runs one within them", async () => {
    const refused = (await client.callTool({ name: "search_docs", arguments: { query: "", limit: 500 } })) as CallToolResult;
    expect(refused).toEqual({
      content: [
        {
          type: "text",
          text: "Invalid arguments for tool search_docs: query: must NOT have fewer than 1 characters; limit: must be <= 100",
        },
      ],
      isError: true,
    });
    const ran = (await client.callTool({ name: "search_docs", arguments: { query: "a", limit: 7 } })) as CallToolResult;
    expect(ran.structuredContent).toEqual({ hits: 7 });
  });
});
