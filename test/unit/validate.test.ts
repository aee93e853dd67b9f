import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { bundleJsonSchema } from "../../src/bundle/json-schema.js";
import { toJsonText } from "../../src/bundle/serialize.js";
import { ROOT } from "../helpers/cli.js";

describe("the bundle's JSON Schema", () => {
  it("schemas/bundle.schema.json is the JSON Schema of the zod bundle schema (npm run schema:bundle)", async () => {
    expect(await readFile(join(ROOT, "schemas/bundle.schema.json"), "utf8")).toBe(toJsonText(bundleJsonSchema()));
  });
});
