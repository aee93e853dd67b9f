import type { Tool } from "./types.js";

/** Standard `outputSchema` first, then PMCP's legacy annotation, then `_meta`. */
export function outputSchemaOf(tool: Tool): { schema: unknown; pointer: string } | undefined {
  if (tool.outputSchema !== undefined) return { schema: tool.outputSchema, pointer: "/outputSchema" };
  const legacy = tool.annotations?.["pmcp:outputSchema"];
  if (legacy !== undefined) return { schema: legacy, pointer: "/annotations/pmcp:outputSchema" };
  const meta = tool._meta?.["pmcp:outputSchema"];
  if (meta !== undefined) return { schema: meta, pointer: "/_meta/pmcp:outputSchema" };
  return undefined;
}
