import { z } from "zod";
import { BundleSchema } from "./types.js";

/** The published JSON Schema of the bundle format, derived from the zod schema so the two cannot drift. */
export function bundleJsonSchema(): Record<string, unknown> {
  const { $schema, ...schema } = z.toJSONSchema(BundleSchema, { target: "draft-2020-12" });
  return {
    $schema,
    title: "pmcp-codegen schema bundle",
    description: "Every tool of every exported MCP server, recorded as the server listed it (written by pmcp schema export).",
    ...schema,
  };
}
