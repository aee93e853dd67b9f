import { describe, expect, it } from "vitest";
import { canonicalBundle, toJsonText } from "../../src/bundle/serialize.js";
import { parseSchemaFile } from "../../src/bundle-files/read.js";

describe("parseSchemaFile", () => {
  it("keeps each object's keys in the file's order, not zod's, so a bundle read and written back keeps its bytes", () => {
    // As server-everything lists its tools: _meta and execution after outputSchema, a title after the version.
    const text = toJsonText({
      version: "1.0",
      servers: [
        {
          id: "everything",
          serverInfo: { title: "Everything", name: "everything", version: "2.0.0" },
          tools: [
            {
              name: "echo",
              inputSchema: { type: "object" },
              execution: { taskSupport: "forbidden" },
              annotations: { readOnlyHint: true },
              outputSchema: { type: "object" },
              _meta: { "vendor/x": 1 },
              description: "Echoes",
            },
          ],
          inferred: [
            {
              quality: "low",
              tool: "echo",
              schema: { type: "object" },
              observations: 1,
              seen: 1,
              firstSeen: "a",
              lastSeen: "b",
              redacted: false,
              consistency: 1,
              fields: [],
            },
          ],
        },
      ],
    });
    const { bundle } = parseSchemaFile("bundle.json", text);
    expect(Object.keys(bundle.servers[0]!.tools[0]!)).toEqual([
      "name",
      "inputSchema",
      "execution",
      "annotations",
      "outputSchema",
      "_meta",
      "description",
    ]);
    expect(toJsonText(canonicalBundle(bundle.servers))).toBe(text);
  });
});
