/** The built-in templates, or a folder's replacements for them; Handlebars loads only to compile. */

import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { PmcpError } from "../errors.js";
import { hash } from "./hash.js";

const TEMPLATE_NAMES = ["server.ts.hbs", "index.ts.hbs"] as const;
const BUILTIN_TEMPLATES = new URL("../../templates/", import.meta.url);

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

/** A digest of the templates a run would use, built-in or from `dir`. */
export async function templatesDigest(dir: string | undefined): Promise<string> {
  return (await templateSources(dir)).hash;
}

export async function templateSources(dir: string | undefined): Promise<TemplateSources> {
  const custom = await Promise.all(
    TEMPLATE_NAMES.map((name) => (dir === undefined ? undefined : readFile(join(dir, name), "utf8").catch(() => undefined))),
  );
  // A mistyped folder would otherwise give the built-in templates without a word.
  if (dir !== undefined && custom.every((text) => text === undefined)) {
    const isFolder = await stat(dir).then(
      (info) => info.isDirectory(),
      () => false,
    );
    throw new PmcpError(
      "INVALID_ARGUMENT",
      isFolder ? `templates folder ${dir} has neither ${TEMPLATE_NAMES.join(" nor ")}` : `templates folder ${dir}: no such folder`,
    );
  }
  const [server, index] = await Promise.all(
    TEMPLATE_NAMES.map(async (name, at) => custom[at] ?? (await readFile(new URL(name, BUILTIN_TEMPLATES), "utf8"))),
  );
  return { server: server!, index: index!, hash: hash(`${server}\0${index}`) };
}

/** The templates a render uses, built-in or from `dir`, compiled. */
export async function loadTemplates(dir?: string): Promise<CompiledTemplates> {
  return compile(await templateSources(dir));
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
