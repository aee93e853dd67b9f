import { z } from "zod";

/**
 * Read raw: `Client.listTools()` drops annotation keys it does not know, so it would hide
 * exactly what the typedTool tests look for.
 */
export const Listing = z.object({
  tools: z.array(
    z.looseObject({ name: z.string(), outputSchema: z.unknown().optional(), annotations: z.record(z.string(), z.unknown()).optional() }),
  ),
});

export const CallResult = z.object({
  content: z.array(z.looseObject({ type: z.string(), text: z.string() })),
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
});
