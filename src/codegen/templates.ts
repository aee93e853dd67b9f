/** Templates compiled from their text; Handlebars loads only to compile. Reading them from disk is generate/template-files.ts's. */

/** The texts of both templates, and a digest of them: a cache's key. */
export interface TemplateSources {
  server: string;
  index: string;
  hash: string;
}

/**
 * A compiled template: the render context in, the file's text out. Our own type, not Handlebars'
 * global `HandlebarsTemplateDelegate`, so the published declarations compile without its types.
 */
export type Template = (context: unknown) => string;

export interface CompiledTemplates {
  server: Template;
  index: Template;
}

/** Compiled once per template text and process: rendering many bundles reuses them. */
const compiled = new Map<string, Promise<CompiledTemplates>>();

export function compile(sources: TemplateSources): Promise<CompiledTemplates> {
  let pending = compiled.get(sources.hash);
  if (pending === undefined) {
    pending = import("handlebars").then(({ default: Handlebars }) => {
      const handlebars = Handlebars.create();
      return {
        server: handlebars.compile(sources.server, { noEscape: true }),
        index: handlebars.compile(sources.index, { noEscape: true }),
      };
    });
    compiled.set(sources.hash, pending);
  }
  return pending;
}
