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

/**
 * Whether a declared output schema's root is not `type: "object"` (allowed from protocol 2026-07-28
 * on): 2025-era clients then get the value wrapped as `{ result }` by v2 servers.
 */
export function isNonObjectOutput(schema: unknown): boolean {
  return !(typeof schema === "object" && schema !== null && (schema as { type?: unknown }).type === "object");
}
