import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { z } from "zod";
import { ReuseCache } from "../cache/reuse-cache.js";
import { ToolManifestSchema } from "../server/manifest.js";
import type { FromSourceResult } from "./from-source.js";
import { ObservationsSchema, observationsHold } from "./observations.js";
import type { SourceProblem } from "./source-problems.js";

const SourceProblemSchema: z.ZodType<SourceProblem> = z.object({
  file: z.string(),
  line: z.number(),
  column: z.number(),
  message: z.string(),
});

/** What a run recorded: what its compile asked the file system and was answered, and the result. */
const SourceEntrySchema = z.object({
  observations: ObservationsSchema,
  result: z.object({ manifest: ToolManifestSchema, problems: z.array(SourceProblemSchema), warnings: z.array(SourceProblemSchema) }),
});
type SourceEntry = z.infer<typeof SourceEntrySchema>;

/**
 * toolsFromSource, answered from the reuse cache (`from-source/` in it) while every question the
 * last compile asked the file system gets the answer it got (observations.ts): a hit loads neither
 * TypeScript nor the compile. The key holds what else shapes the result: the module, the working
 * directory (paths in the result are relative to it) and the compiler's version, which stands for
 * its own lib .d.ts files. A result with problems is recorded too: the fix of an unresolved import
 * is a new file, a question answered differently. `useCache: false` compiles and records nothing.
 */
export async function toolsFromSourceCached(file: string, useCache: boolean): Promise<FromSourceResult> {
  const cache = useCache ? await ReuseCache.open() : undefined;
  const compile = async () => (await import("./from-source.js")).toolsFromSource(file);
  if (cache === undefined) return compile();
  const name = `from-source/${cache.key({ module: resolve(file), cwd: process.cwd(), typescript: await typescriptVersion() })}.json`;
  const recorded = await reusable(await cache.read(name));
  if (recorded !== undefined) return recorded;
  const result = await compile();
  const { observations, ...rest } = result;
  if (observations !== undefined)
    await cache.write([{ name, content: JSON.stringify({ observations, result: rest } satisfies SourceEntry) }]);
  return result;
}

/** The version of the TypeScript toolsFromSource loads, from its package.json: importing it costs hundreds of ms. */
async function typescriptVersion(): Promise<unknown> {
  const manifest = await readFile(createRequire(import.meta.url).resolve("typescript/package.json"), "utf8");
  return (JSON.parse(manifest) as { version?: unknown }).version;
}

/** The recorded result if every recorded answer still holds; an entry that is not JSON or not of the entry's shape is a miss. */
async function reusable(text: string | undefined): Promise<FromSourceResult | undefined> {
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const entry = SourceEntrySchema.safeParse(json);
  if (!entry.success || !observationsHold(entry.data.observations)) return undefined;
  // The text as recorded, not zod's copy of it: a parse may order keys differently, and the manifest is printed as is.
  const { observations, result } = json as SourceEntry;
  return { ...result, observations };
}
