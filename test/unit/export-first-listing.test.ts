import { describe, expect, it } from "vitest";
import type { BundleServer } from "../../src/bundle/types.js";
import { assembleBundle } from "../../src/export/assemble.js";

/** A server listing `get_stock` and a tool whose `_meta` holds `pmcp/unlisted: unlisted`. */
function server(unlisted: unknown, name = "enable_tools"): BundleServer {
  return {
    id: "catalog",
    tools: [
      { name: "get_stock", inputSchema: { type: "object" } },
      { name, inputSchema: { type: "object" }, _meta: { "pmcp/unlisted": unlisted } },
    ],
  };
}

const warningsOf = (servers: BundleServer[]) => assembleBundle(servers, undefined).warnings;

describe("export of a server whose first listing holds tools back", () => {
  it("warns with the counts and the marked tool's name", () => {
    expect(warningsOf([server(6)])).toEqual([
      `server "catalog" listed 1 tool first and keeps 6 more behind "enable_tools" (registerFunctions' listing): ` +
        `the bundle holds the first listing only; export a server registered with listing "all" for every tool`,
    ]);
    expect(warningsOf([server(1, "more_tools")])).toEqual([
      `server "catalog" listed 1 tool first and keeps 1 more behind "more_tools" (registerFunctions' listing): ` +
        `the bundle holds the first listing only; export a server registered with listing "all" for every tool`,
    ]);
  });

  it("ignores a marker that is not a whole number of at least 1: the server is not trusted", () => {
    for (const unlisted of [0, -3, 2.5, "6", null, true, [6], { n: 6 }, Number.MAX_VALUE]) {
      expect(warningsOf([server(unlisted)]), JSON.stringify(unlisted)).toEqual([]);
    }
  });

  it("does not warn for a server without pmcp's marker, whatever it declares", () => {
    const plain: BundleServer = { id: "plain", tools: [{ name: "enable_tools", inputSchema: { type: "object" } }] };
    expect(warningsOf([plain])).toEqual([]);
  });
});
