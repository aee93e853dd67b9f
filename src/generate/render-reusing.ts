import type { ReuseCache } from "../cache/reuse-cache.js";
import { hash } from "../codegen/hash.js";
import type { RenderedFile, RenderSteps } from "../codegen/render.js";
import type { GenerateWarning } from "../codegen/server-plan.js";
import { compile, type TemplateSources } from "../codegen/templates.js";

export interface ReusingResult {
  files: RenderedFile[];
  warnings: GenerateWarning[];
  /** Servers whose module was kept as it was because its inputs were unchanged and nobody edited it. */
  reused: string[];
}

/**
 * Makes the files of a render (see renderSteps), keeping the text on disk where the reuse cache
 * vouches that this generator made exactly it from the same inputs and templates, and
 * remembering each file it makes; without a cache, it makes every file. Handlebars is loaded
 * only when something has to be made.
 */
export async function renderReusing(
  { steps, warnings }: RenderSteps,
  onDisk: readonly (string | undefined)[],
  templates: TemplateSources,
  cache: ReuseCache | undefined,
): Promise<ReusingResult> {
  const made = await Promise.all(
    steps.map(async (step, index) => {
      const key = cache?.key([templates.hash, step.inputs]);
      const recorded = key === undefined ? undefined : await cache?.entry(key);
      const existing = onDisk[index];
      if (existing !== undefined && recorded !== undefined && recorded.contentHash === hash(existing))
        return { content: existing, warnings: recorded.warnings, reused: true };
      const { content, warnings } = step.make(await compile(templates));
      if (key === undefined) return { content, warnings, reused: false };
      const contentHash = hash(content);
      // An entry that says so already (the module was made for another folder) is not written again.
      const remember = recorded?.contentHash === contentHash ? undefined : { key, entry: { contentHash, warnings } };
      return { content, warnings, reused: false, remember };
    }),
  );
  await cache?.remember(made.flatMap((file) => file.remember ?? []));
  return {
    files: steps.map((step, index) => ({ path: step.path, content: made[index]!.content })),
    warnings: [...warnings, ...made.flatMap((file) => file.warnings)],
    reused: steps.flatMap((step, index) => (made[index]!.reused && step.server !== undefined ? [step.server] : [])),
  };
}
