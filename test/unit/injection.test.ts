import { describe, expect, it } from "vitest";
import { parseSchemaFile } from "../../src/bundle-files/read.js";

describe("untrusted strings stay data", () => {
  it("hostile server ids never reach a file name: the bundle is rejected", () => {
    const text = JSON.stringify({ version: "1.0", servers: [{ id: "../../etc/x", tools: [] }] });
    expect(() => parseSchemaFile("b.json", text)).toThrow(/server "\.\.\/\.\.\/etc\/x" id: a server id is/);
  });
});
