import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Bundle, BundleServer } from "../bundle/types.js";
import { commentText, literal } from "./code.js";
import { camelCase, NameScope } from "./naming.js";
import { clientClassName, planServerModule, type GenerateWarning } from "./plan.js";

export interface RenderOptions {
  /** Where the bundle came from, for the banner. */
  source: string;
  runtimeImport: string;
  strictObjects: boolean;
  /** A folder whose `server.ts.hbs` / `index.ts.hbs` replace ours. */
  templatesDir?: string;
  generatorVersion: string;
}

export interface RenderedFile {
  /** Relative to the output folder. */
  path: string;
  content: string;
}

export interface RenderResult {
  files: RenderedFile[];
  warnings: GenerateWarning[];
  /** Servers whose module was kept as it was because its inputs and body were unchanged. */
  reused: string[];
}

const TEMPLATE_NAMES = ["server.ts.hbs", "index.ts.hbs"] as const;
const BUILTIN_TEMPLATES = new URL("../../templates/", import.meta.url);
const HASH_PREFIX = "// pmcp-codegen-hash: ";

/**
 * Renders one module per server plus `index.ts`. `previous` returns a file's current
 * text; a file whose recorded digest (its inputs: bundle entry, options, templates,
 * generator version) is unchanged, and whose body nobody edited, is reused as it is.
 * Handlebars is loaded only when something has to be rendered.
 */
export async function renderClients(
  bundle: Bundle,
  options: RenderOptions,
  previous: (path: string) => Promise<string | undefined> = async () => undefined,
): Promise<RenderResult> {
  const templates = await templateSources(options.templatesDir);
  const produce = async (path: string, inputs: unknown, make: (compiled: CompiledTemplates) => string) => {
    const digest = hash(JSON.stringify([options.generatorVersion, options.runtimeImport, options.strictObjects, options.source, templates.hash, inputs]));
    const existing = await previous(path);
    if (existing !== undefined && isIntact(existing, digest)) return { path, content: existing, reused: true };
    const body = make(await compile(templates));
    return { path, content: `${body}${HASH_PREFIX}${digest}.${hash(body)}\n`, reused: false };
  };

  const files: RenderedFile[] = [];
  const warnings: GenerateWarning[] = [];
  const reused: string[] = [];
  const index = new NameScope(["z", "rt"]);
  const modules: { namespace: string; importPath: string; className: string; alias: string }[] = [];
  for (const server of bundle.servers) {
    const file = await produce(`${server.id}.ts`, server, ({ server: template }) => {
      const plan = planServerModule(server, options);
      warnings.push(...plan.warnings);
      return template({ ...plan, banner: banner(options, server), runtimeImport: literal(options.runtimeImport) });
    });
    files.push({ path: file.path, content: file.content });
    if (file.reused) reused.push(server.id);
    const className = clientClassName(server.id);
    const exported = index.claim(className).name;
    modules.push({
      namespace: index.claim(camelCase(server.id, "server")).name,
      importPath: literal(`./${server.id}.js`),
      className,
      alias: exported === className ? "" : exported,
    });
  }
  const indexFile = await produce("index.ts", modules, ({ index: template }) => template({ banner: banner(options), modules }));
  files.push({ path: indexFile.path, content: indexFile.content });
  return { files, warnings, reused };
}

interface TemplateSources {
  server: string;
  index: string;
  hash: string;
}

interface CompiledTemplates {
  server: HandlebarsTemplateDelegate;
  index: HandlebarsTemplateDelegate;
}

async function templateSources(dir: string | undefined): Promise<TemplateSources> {
  const [server, index] = await Promise.all(
    TEMPLATE_NAMES.map(async (name) => {
      const custom = dir === undefined ? undefined : await readFile(join(dir, name), "utf8").catch(() => undefined);
      return custom ?? (await readFile(new URL(name, BUILTIN_TEMPLATES), "utf8"));
    }),
  );
  return { server: server!, index: index!, hash: hash(`${server}\0${index}`) };
}

/** Compiled once per template text and process: rendering many bundles reuses them. */
const compiled = new Map<string, Promise<CompiledTemplates>>();

function compile(sources: TemplateSources): Promise<CompiledTemplates> {
  let pending = compiled.get(sources.hash);
  if (pending === undefined) {
    pending = import("handlebars").then(({ default: Handlebars }) => {
      const handlebars = Handlebars.create();
      return { server: handlebars.compile(sources.server, { noEscape: true }), index: handlebars.compile(sources.index, { noEscape: true }) };
    });
    compiled.set(sources.hash, pending);
  }
  return pending;
}

function banner(options: RenderOptions, server?: BundleServer): string {
  const what = server === undefined ? "" : ` (server "${server.id}")`;
  return `// Generated by pmcp-codegen ${options.generatorVersion} from ${commentText(options.source)}${what}. Do not edit: run pmcp generate.`;
}

/**
 * The last line records the inputs' digest and the hash of everything above it, so a
 * module is reused only when its inputs are unchanged and nobody edited it.
 */
function isIntact(text: string, digest: string): boolean {
  const marker = text.lastIndexOf(HASH_PREFIX);
  if (marker < 0) return false;
  const body = text.slice(0, marker);
  return text.slice(marker) === `${HASH_PREFIX}${digest}.${hash(body)}\n`;
}

/** The first line that marks a file as ours, so stale modules can be found and removed. */
export function isGeneratedFile(text: string): boolean {
  return text.startsWith("// Generated by pmcp-codegen ");
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}
