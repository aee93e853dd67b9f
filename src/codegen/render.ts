import { createHash } from "node:crypto";
import { readFile, readdir } from "node:fs/promises";
import { join } from "node:path";
import { ServerIdSchema, type Bundle, type BundleServer } from "../bundle/types.js";
import { RuntimeFailure } from "../errors.js";
import { commentText, literal } from "./code.js";
import { camelCase, clientClassName, NameScope } from "../ir/naming.js";
import { DEFAULT_MIN_QUALITY, type Quality } from "../bundle/quality.js";
import { planServerModule, type GenerateWarning } from "./plan.js";

export interface RenderOptions {
  /** Where the bundle came from, for the banner. */
  source: string;
  runtimeImport: string;
  strictObjects: boolean;
  /** The lowest quality of inferred schema used for a tool that declares none (default `low`). */
  minQuality?: Quality;
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
const RECORD_PREFIX = "// pmcp-codegen-record: ";

/** What a module records about itself, so that reusing or checking it needs no re-planning. */
interface ModuleRecord {
  warnings: GenerateWarning[];
  typeDigests: [tool: string, digest: string][];
}

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
  const generator = await generatorDigest();
  const plan = { strictObjects: options.strictObjects, minQuality: options.minQuality ?? DEFAULT_MIN_QUALITY };
  const produce = async (path: string, inputs: unknown, make: (compiled: CompiledTemplates) => { code: string } & ModuleRecord) => {
    const digest = hash(JSON.stringify([generator, options.runtimeImport, plan.strictObjects, plan.minQuality, options.source, templates.hash, inputs]));
    const existing = await previous(path);
    if (existing !== undefined && isIntact(existing, digest)) return { path, content: existing, reused: true, warnings: readRecord(existing).warnings };
    const { code, ...record } = make(await compile(templates));
    // The record is base64 JSON (inert in a comment): a reused module still reports its warnings.
    const body = `${code}${RECORD_PREFIX}${Buffer.from(JSON.stringify(record)).toString("base64")}\n`;
    return { path, content: `${body}${HASH_PREFIX}${digest}.${hash(body)}\n`, reused: false, warnings: record.warnings };
  };

  const files: RenderedFile[] = [];
  const warnings: GenerateWarning[] = [];
  const reused: string[] = [];
  const index = new NameScope(["z", "rt"]);
  const modules: { namespace: string; importPath: string; className: string; alias: string }[] = [];
  for (const server of bundle.servers) {
    // The id becomes a file name and a module path: only ids the bundle schema allows get that far.
    if (!ServerIdSchema.safeParse(server.id).success) throw new RuntimeFailure(`server id ${JSON.stringify(server.id)} is not a valid server id`);
    const file = await produce(`${server.id}.ts`, server, ({ server: template }) => {
      const module = planServerModule(server, plan);
      return {
        code: template({ ...module, banner: banner(options, server), runtimeImport: literal(options.runtimeImport) }),
        warnings: module.warnings,
        typeDigests: module.typeDigests,
      };
    });
    files.push({ path: file.path, content: file.content });
    warnings.push(...file.warnings);
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
  const indexFile = await produce("index.ts", modules, ({ index: template }) => ({ code: template({ banner: banner(options), modules }), warnings: [], typeDigests: [] }));
  files.push({ path: indexFile.path, content: indexFile.content });
  return { files, warnings, reused };
}

let generatorCode: Promise<string> | undefined;

/**
 * A digest of this generator's own code (the compiled codegen modules), so that a module
 * made by another build of pmcp-codegen is never reused, whatever its version number says.
 */
function generatorDigest(): Promise<string> {
  generatorCode ??= (async () => {
    const dir = new URL(".", import.meta.url);
    const names = (await readdir(dir)).filter((name) => name.endsWith(".js") || name.endsWith(".ts")).sort();
    const texts = await Promise.all(names.map((name) => readFile(new URL(name, dir), "utf8")));
    return hash(texts.join("\0"));
  })();
  return generatorCode;
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

function readRecord(text: string): ModuleRecord {
  const line = text.split("\n").find((candidate) => candidate.startsWith(RECORD_PREFIX));
  if (line === undefined) return { warnings: [], typeDigests: [] };
  try {
    const record = JSON.parse(Buffer.from(line.slice(RECORD_PREFIX.length), "base64").toString("utf8")) as Partial<ModuleRecord>;
    return { warnings: Array.isArray(record.warnings) ? record.warnings : [], typeDigests: Array.isArray(record.typeDigests) ? record.typeDigests : [] };
  } catch {
    return { warnings: [], typeDigests: [] };
  }
}

/**
 * The tools whose types differ between two versions of a module (added, removed or
 * changed), from the digests each records; for `generate --check`.
 */
export function toolsWithChangedTypes(before: string, after: string): string[] {
  const old = new Map(readRecord(before).typeDigests);
  const now = new Map(readRecord(after).typeDigests);
  const names = new Set([...old.keys(), ...now.keys()]);
  return [...names].filter((name) => old.get(name) !== now.get(name)).sort();
}

/** The first line that marks a file as ours, so stale modules can be found and removed. */
export function isGeneratedFile(text: string): boolean {
  return text.startsWith("// Generated by pmcp-codegen ");
}

function hash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}
