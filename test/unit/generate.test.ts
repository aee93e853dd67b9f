import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Bundle, BundleServer, InferredTool } from "../../src/bundle/types.js";
import { planServerModule } from "../../src/codegen/plan.js";
import { renderClients } from "../../src/codegen/render.js";
import { loadTemplates } from "../../src/generate/template-files.js";
import { camelCase, pascalCase } from "../../src/ir/naming.js";
import { LISTED_TOOLS } from "../fixtures/listing-server.mjs";
import { outputDir } from "../helpers/typescript.js";

const templates = await loadTemplates();

describe("naming", () => {
  it.each([
    ["delete-record", "DeleteRecord", "deleteRecord"],
    ["get_stock", "GetStock", "getStock"],
    ["class", "Class", "class_"],
    ["2fa-verify", "_2faVerify", "_2faVerify"],
    ["listAllowedDirectories", "ListAllowedDirectories", "listAllowedDirectories"],
    ["HTTPServer status", "HttpServerStatus", "httpServerStatus"],
    ["???", "Unnamed", "unnamed"],
  ])("%s → %s / %s", (name, pascal, camel) => {
    expect(pascalCase(name)).toBe(pascal);
    expect(camelCase(name)).toBe(camel);
  });

  it("resolves collisions deterministically with a suffix and a warning, keeping the wire name", () => {
    const server: BundleServer = {
      id: "listing",
      tools: [...LISTED_TOOLS].sort((a, b) => (a.name < b.name ? -1 : 1)) as BundleServer["tools"],
    };
    const plan = planServerModule(server, { strictObjects: false, minQuality: "low" });
    const byWire = Object.fromEntries(plan.tools.map((tool) => [JSON.parse(tool.toolLiteral), tool]));
    expect(byWire["delete-record"]).toMatchObject({ methodName: "deleteRecord", resultType: "DeleteResult", argsType: "DeleteRecordArgs" });
    expect(byWire.delete_record).toMatchObject({
      methodName: "deleteRecord2",
      resultType: "DeleteRecordResult",
      argsType: "DeleteRecordArgs2",
    });
    expect(byWire.class).toMatchObject({ methodName: "class_", resultType: "ClassList", argsType: "ClassArgs" });
    expect(plan.warnings).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          server: "listing",
          tool: "delete_record",
          message: expect.stringMatching(/method name taken.*deleteRecord2/),
        }),
      ]),
    );
    // The same plan again, and with another tool added elsewhere in the alphabet, names what existed the same way.
    expect(planServerModule(server, { strictObjects: false, minQuality: "low" }).tools.map((tool) => tool.methodName)).toEqual(
      plan.tools.map((tool) => tool.methodName),
    );
  });

  it("falls back from pmcp:outputTypeName to _meta, then the schema title, then <Tool>Result", () => {
    const server: BundleServer = {
      id: "names",
      tools: [
        { name: "a", outputSchema: { type: "object", title: "FromTitle" }, _meta: { "pmcp:outputTypeName": "FromMeta" } },
        { name: "b", outputSchema: { type: "object", title: "from title" } },
        { name: "c", outputSchema: { type: "object" } },
        { name: "d" },
        { name: "e", _meta: { "pmcp:outputSchema": { type: "object", properties: { x: { type: "string" } } } } },
      ],
    };
    const plan = planServerModule(server, { strictObjects: false, minQuality: "low" });
    expect(plan.tools.map((tool) => tool.resultType)).toEqual(["FromMeta", "FromTitle", "CResult", "DResult", "EResult"]);
    expect(plan.tools[3]!.resultTypeCode).toBe("rt.ToolResult");
    expect(plan.tools[4]!.resultTypeCode).toContain("x?: string;");
  });
});

describe("PMCP's two shapes of an output schema", () => {
  it("a tool as PMCP wrote it before 1.14 (annotation) and as 1.14 writes it (top-level outputSchema) generate the same module", async () => {
    const schema = { type: "object", properties: { quantity: { type: "integer" } }, required: ["quantity"] };
    const before: BundleServer = {
      id: "pmcp",
      tools: [{ name: "get_stock", annotations: { "pmcp:outputTypeName": "StockLevel", "pmcp:outputSchema": schema } }],
    };
    const now: BundleServer = {
      id: "pmcp",
      tools: [{ name: "get_stock", outputSchema: schema, annotations: { "pmcp:outputTypeName": "StockLevel" } }],
    };
    const [old, current] = [before, now].map((server) => planServerModule(server, { strictObjects: false, minQuality: "low" }));
    expect(old!.tools.map((tool) => [tool.resultType, tool.resultTypeCode, tool.parser?.code])).toEqual(
      current!.tools.map((tool) => [tool.resultType, tool.resultTypeCode, tool.parser?.code]),
    );
    expect(current!.tools[0]!.resultType).toBe("StockLevel");
    expect(current!.tools[0]!.resultTypeCode).toBe("{\n  quantity: number;\n}");
  });
});

describe("pmcp generate options and guarantees", () => {
  it("lenient parsers check oneOf of closed objects as anyOf: never narrower than Ajv", async () => {
    const dir = await outputDir("oneof");
    const closed = (key: string) => ({
      type: "object",
      properties: { [key]: { type: "integer" } },
      required: [key],
      additionalProperties: false,
    });
    const bundle = {
      version: "1.0",
      servers: [{ id: "one", tools: [{ name: "pick", outputSchema: { oneOf: [closed("a"), closed("b")] } }] }],
    };
    for (const strictObjects of [false, true]) {
      const { files } = renderClients(
        bundle,
        {
          source: "b",
          runtimeImport: "@pmcp-codegen/runtime",
          strictObjects,
          generatorVersion: "test",
        },
        templates,
      );
      const path = join(dir, `one-${strictObjects}.ts`);
      await writeFile(path, files.find((file) => file.path === "one.ts")!.content);
      const { PickResultSchema } = await import(path);
      // Ajv accepts {a: 1}: only the first branch matches once extra keys are forbidden.
      expect(PickResultSchema.safeParse({ a: 1 }).success).toBe(true);
      expect(PickResultSchema.safeParse({ c: 1 }).success).toBe(false);
    }
  });

  it("an enum of 100,000 values, with repeats, generates one literal per distinct value (it took minutes when quadratic)", async () => {
    const values = Array.from({ length: 100_000 }, (_, index) => `value-${index % 60_000}`);
    const bundle = {
      version: "1.0",
      servers: [{ id: "wide", tools: [{ name: "pick", outputSchema: { type: "object", properties: { v: { enum: values } } } }] }],
    };
    const { files } = renderClients(
      bundle,
      {
        source: "b",
        runtimeImport: "@pmcp-codegen/runtime",
        strictObjects: false,
        generatorVersion: "test",
      },
      templates,
    );
    const module = files.find((file) => file.path === "wide.ts")!.content;
    const type = /export type PickResult = \{\n {2}v\?: (.*);\n\};/.exec(module)?.[1];
    expect(type?.split(" | ")).toEqual(Array.from({ length: 60_000 }, (_, index) => `"value-${index}"`));
  }, 120_000);

  it("a server's module does not change when other servers join the bundle", async () => {
    const options = { source: "b.json", runtimeImport: "@pmcp-codegen/runtime", strictObjects: false, generatorVersion: "test" };
    const listing: BundleServer = {
      id: "listing",
      tools: [...LISTED_TOOLS].sort((a, b) => (a.name < b.name ? -1 : 1)) as BundleServer["tools"],
    };
    const other: BundleServer = { id: "another", tools: LISTED_TOOLS.slice(0, 2) as BundleServer["tools"] };
    const alone = renderClients({ version: "1.0", servers: [listing] }, options, templates);
    const together = renderClients({ version: "1.0", servers: [other, listing] }, options, templates);
    const module = (result: typeof alone) => result.files.find((file) => file.path === "listing.ts")!.content;
    expect(module(together)).toBe(module(alone));
  });
});

describe("where a result type came from", () => {
  const learned = (
    tool: string,
    schema: Record<string, unknown>,
    quality: "low" | "medium",
    observations: number,
    fields: InferredTool["fields"],
  ): InferredTool => ({
    tool,
    schema,
    observations,
    seen: observations,
    firstSeen: "a",
    lastSeen: "b",
    redacted: false,
    consistency: 0.5,
    quality,
    fields,
  });
  const prices = {
    type: "object",
    properties: {
      items: {
        type: "array",
        items: { type: "object", properties: { price: { anyOf: [{ type: "number" }, { type: "string" }] } }, required: ["price"] },
      },
    },
    required: ["items"],
  };
  const bundle: Bundle = {
    version: "1.0",
    servers: [
      {
        id: "shop",
        tools: [
          { name: "prices", description: "Prices of the items.", inputSchema: { type: "object" } },
          {
            name: "stock",
            inputSchema: { type: "object" },
            outputSchema: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
          },
          { name: "survey", inputSchema: { type: "object" } },
        ],
        inferred: [
          learned("prices", prices, "medium", 20, [
            { path: "", types: { object: 20 } },
            { path: "/items", presence: 1, types: { array: 20 } },
            { path: "/items/*", types: { object: 20 } },
            { path: "/items/*/price", presence: 1, types: { integer: 5, number: 6, string: 9 } },
          ]),
          {
            ...learned(
              "survey",
              { type: "object", additionalProperties: { anyOf: [{ type: "boolean" }, { type: "string" }] } },
              "low",
              2,
              Array.from({ length: 12 }, (_, index) => ({
                path: `/q${String(index + 1).padStart(2, "0")}`,
                presence: 1,
                types: { boolean: 1, string: 1 },
              })),
            ),
            // Two JSON answers, and three in prose: typed by the JSON, and its doc says what `.value` is for the rest.
            content: { text: 3 },
          },
        ],
      },
    ],
  };

  it("says declared or inferred (from how many observations, at what quality), names fields of low consistency, and returns the whole result for an inferred type", () => {
    const options = { source: "b.json", runtimeImport: "@pmcp-codegen/runtime", strictObjects: false, generatorVersion: "test" };
    const module = renderClients(bundle, options, templates).files.find((file) => file.path === "shop.ts")!.content;
    const body = module.slice(module.indexOf("/** Arguments of the `prices`"), module.indexOf("// pmcp-codegen-record"));
    expect(body.split("\n")).toEqual([
      "/** Arguments of the `prices` tool. */",
      "export type PricesArgs = { [key: string]: unknown };",
      "",
      "/**",
      " * Result of the `prices` tool, inferred from 20 observations, quality medium.",
      " *",
      " * Low consistency: /items/*\\/price 55 % (number 11, string 9).",
      " */",
      "export type PricesResult = {",
      "  items: Array<{",
      "    price: number | string;",
      "  }>;",
      "};",
      "",
      "export const PricesResultSchema = z.looseObject({",
      "  items: z.array(z.looseObject({",
      "    price: z.union([z.number(), z.string()]),",
      "  })),",
      "}) as unknown as z.ZodType<PricesResult>;",
      "",
      "/** Arguments of the `stock` tool. */",
      "export type StockArgs = { [key: string]: unknown };",
      "",
      "/** Result of the `stock` tool, declared by the server. */",
      "export type StockResult = {",
      "  n: number;",
      "};",
      "",
      "export const StockResultSchema = z.looseObject({",
      '  n: z.number().refine(Number.isInteger, "expected an integer"),',
      "}) as unknown as z.ZodType<StockResult>;",
      "",
      "/** Arguments of the `survey` tool. */",
      "export type SurveyArgs = { [key: string]: unknown };",
      "",
      "/**",
      " * Result of the `survey` tool, inferred from 2 observations, quality low.",
      " *",
      " * Low consistency: /q01 50 % (boolean 1, string 1).",
      " * Low consistency: /q02 50 % (boolean 1, string 1).",
      " * Low consistency: /q03 50 % (boolean 1, string 1).",
      " * Low consistency: /q04 50 % (boolean 1, string 1).",
      " * Low consistency: /q05 50 % (boolean 1, string 1).",
      " * Low consistency: /q06 50 % (boolean 1, string 1).",
      " * Low consistency: /q07 50 % (boolean 1, string 1).",
      " * Low consistency: /q08 50 % (boolean 1, string 1).",
      " * Low consistency: /q09 50 % (boolean 1, string 1).",
      " * Low consistency: /q10 50 % (boolean 1, string 1).",
      " * Low consistency: 2 more fields.",
      " *",
      " * It also answered without JSON (text in 3): `.value` is undefined for such an answer, read `.text` or `.content`.",
      " */",
      "export type SurveyResult = { [key: string]: boolean | string };",
      "",
      "export const SurveyResultSchema = z.record(z.string(), z.union([z.boolean(), z.string()])) as unknown as z.ZodType<SurveyResult>;",
      "",
      '/** Typed client for the "shop" MCP server. */',
      "export class ShopClient {",
      "  readonly #client: rt.CompositionClient;",
      "  readonly #serverId: string;",
      "",
      "  /** `serverId` is this server's key in the CompositionClient's configuration. */",
      '  constructor(client: rt.CompositionClient, serverId: string = "shop") {',
      "    this.#client = client;",
      "    this.#serverId = serverId;",
      "  }",
      "",
      "  /**",
      "   * Prices of the items.",
      "   *",
      "   * Calls the `prices` tool.",
      "   * The tool declares no output schema; the result type is inferred from 20 observations, quality medium.",
      "   * Returns the result as sent (`.text`, `.get()`, `.json()`, …) with its value in `.value`: code written for the untyped tool still compiles.",
      "   * A value that does not match the type is passed on with a warning (CompositionClient onInferredMismatch), not rejected;",
      "   * `.value` is undefined when the result holds no JSON.",
      "   */",
      "  prices(args?: PricesArgs, options?: rt.CallOptions): Promise<rt.ParsedResult<PricesResult>> {",
      '    return this.#client.callTool({ server: this.#serverId, tool: "prices", args: args ?? {}, parse: PricesResultSchema, retryable: false, lenient: true }, { ...options, withResult: true });',
      "  }",
      "",
      "  /**",
      "   * Calls the `stock` tool.",
      "   * The result type is declared by the server.",
      "   */",
      "  stock(args?: StockArgs, options?: rt.CallOptions & { withResult?: false }): Promise<StockResult>;",
      "  /** The same call, returning the whole result: the parsed value in `.value`, beside the content blocks and `_meta`. */",
      "  stock(args: StockArgs | undefined, options: rt.WithResult): Promise<rt.ParsedResult<StockResult>>;",
      "  stock(args?: StockArgs, options?: rt.CallOptions & { withResult?: boolean }): Promise<StockResult | rt.ParsedResult<StockResult>> {",
      '    return this.#client.callTool({ server: this.#serverId, tool: "stock", args: args ?? {}, parse: StockResultSchema, retryable: false }, options);',
      "  }",
      "",
      "  /**",
      "   * Calls the `survey` tool.",
      "   * The tool declares no output schema; the result type is inferred from 2 observations, quality low.",
      "   * Returns the result as sent (`.text`, `.get()`, `.json()`, …) with its value in `.value`: code written for the untyped tool still compiles.",
      "   * A value that does not match the type is passed on with a warning (CompositionClient onInferredMismatch), not rejected;",
      "   * `.value` is undefined when the result holds no JSON.",
      "   */",
      "  survey(args?: SurveyArgs, options?: rt.CallOptions): Promise<rt.ParsedResult<SurveyResult>> {",
      '    return this.#client.callTool({ server: this.#serverId, tool: "survey", args: args ?? {}, parse: SurveyResultSchema, retryable: false, lenient: true }, { ...options, withResult: true });',
      "  }",
      "}",
      "",
    ]);
  });
});
