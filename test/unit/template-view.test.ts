import { describe, expect, it } from "vitest";
import type { Bundle } from "../../src/bundle/types.js";
import { parsersImport, renderClients } from "../../src/codegen/render.js";
import { compile } from "../../src/codegen/templates.js";

const BUNDLE: Bundle = {
  version: "1.0",
  servers: [
    {
      id: "inv",
      tools: [
        { name: "get_stock", inputSchema: { type: "object" }, outputSchema: { type: "object", properties: { n: { type: "integer" } } } },
        { name: "ping", inputSchema: { type: "object" } },
      ],
    },
  ],
};
const OPTIONS = { source: "b.json", runtimeImport: "@pmcp-codegen/runtime", strictObjects: false, generatorVersion: "test" };

describe("the templates' view", () => {
  it("is data a user's template reads by name: the version, the server, each tool's method and parser, the index's modules", async () => {
    const templates = await compile({
      server:
        "v{{viewVersion}} {{serverId}} {{serverIdLiteral}} {{className}}{{#each tools}} {{methodName}}:{{#if parser}}{{parser.name}}{{else}}-{{/if}}{{/each}}\n",
      index: "v{{viewVersion}}{{#each modules}} {{namespace}}={{importPath}}{{/each}}\n",
      hash: "template-view-test",
    });
    const { files } = renderClients(BUNDLE, OPTIONS, templates);
    // The record of the generation follows each file's text: only the template's own line is compared.
    expect(files.map((file) => [file.path, file.content.split("\n")[0]])).toEqual([
      ["inv.ts", 'v1 inv "inv" InvClient getStock:GetStockResultSchema ping:-'],
      ["index.ts", 'v1 inv="./inv.js"'],
    ]);
  });

  it("holds nothing to call: every value of it survives JSON", async () => {
    let seen: unknown;
    const templates = await compile({ server: "x", index: "x", hash: "template-view-json" });
    const spy = {
      ...templates,
      server: (view: unknown) => {
        seen = view;
        return templates.server(view);
      },
    };
    renderClients(BUNDLE, OPTIONS, spy);
    expect(JSON.parse(JSON.stringify(seen))).toEqual(seen);
    expect(Object.keys(seen as object).sort()).toEqual([
      "banner",
      "checkParsers",
      "classDoc",
      "className",
      "definitions",
      "parsersImport",
      "runtimeImport",
      "serverId",
      "serverIdLiteral",
      "tools",
      "usesParsers",
      "usesZod",
      "viewVersion",
    ]);
  });
});

describe("the module of the runtime's parsers", () => {
  it("is a package's /parsers subpath, or parsers beside the path of the runtime's entry module", () => {
    expect(
      ["@pmcp-codegen/runtime", "@acme/pmcp-runtime", "/abs/packages/runtime/dist/index.js", "../runtime/index.mjs", "./rt.ts"].map(
        parsersImport,
      ),
    ).toEqual([
      "@pmcp-codegen/runtime/parsers",
      "@acme/pmcp-runtime/parsers",
      "/abs/packages/runtime/dist/parsers.js",
      "../runtime/parsers.mjs",
      "./parsers.ts",
    ]);
  });
});
