import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BundleServer } from "../src/bundle/types.js";
import { planServerModule } from "../src/codegen/plan.js";
import { renderClients } from "../src/codegen/render.js";
import { loadTemplates } from "../src/codegen/templates.js";
import { camelCase, pascalCase } from "../src/ir/naming.js";
import { LISTED_TOOLS } from "./fixtures/listing-server.mjs";
import { outputDir } from "./helpers/typescript.js";

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
          runtimeImport: "pmcp-codegen/runtime",
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
        runtimeImport: "pmcp-codegen/runtime",
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
    const options = { source: "b.json", runtimeImport: "pmcp-codegen/runtime", strictObjects: false, generatorVersion: "test" };
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
