import { DEFAULT_MIN_QUALITY, type Quality } from "../bundle/quality.js";
import { type Bundle, type BundleServer, ServerIdSchema } from "../bundle/types.js";
import { PmcpError } from "../errors.js";
import { camelCase, clientClassName, NameScope } from "../ir/naming.js";
import { commentText, literal } from "./code.js";
import { type GenerateWarning, planModuleFiles, planServerModule } from "./plan.js";
import { ReuseCache } from "./reuse-cache.js";
import { type CompiledTemplates, compile, templateSources } from "./templates.js";

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
  /** Servers whose module was kept as it was because its inputs were unchanged and nobody edited it. */
  reused: string[];
}

const RECORD_PREFIX = "// pmcp-codegen-record: ";

/** What a module records about itself, so that `generate --check` can name the tools whose types changed. */
interface ModuleRecord {
  typeDigests: [tool: string, digest: string][];
}

/**
 * Renders one module per server plus `index.ts`: a function of the bundle, the options, the
 * templates and the generator version only. With `previous` (a file's current text), a module
 * this build made earlier from the same inputs, and nobody edited since, is kept as it is (see
 * ReuseCache). Handlebars is loaded only when something has to be rendered.
 */
export async function renderClients(
  bundle: Bundle,
  options: RenderOptions,
  previous?: (path: string) => Promise<string | undefined>,
): Promise<RenderResult> {
  const templates = await templateSources(options.templatesDir);
  const cache = previous === undefined ? undefined : await ReuseCache.open();
  const plan = { strictObjects: options.strictObjects, minQuality: options.minQuality ?? DEFAULT_MIN_QUALITY };
  // Cache entries are written while the next modules render, and all of them before returning.
  const remembered: Promise<void>[] = [];
  const produce = async (
    path: string,
    inputs: unknown,
    make: (compiled: CompiledTemplates) => { code: string; warnings: GenerateWarning[] } & ModuleRecord,
  ) => {
    const key = cache?.key([
      options.generatorVersion,
      options.runtimeImport,
      plan.strictObjects,
      plan.minQuality,
      options.source,
      templates.hash,
      inputs,
    ]);
    const existing = key === undefined ? undefined : await previous?.(path);
    const kept = existing === undefined || key === undefined ? undefined : await cache?.reusable(key, existing);
    if (existing !== undefined && kept !== undefined) return { path, content: existing, reused: true, warnings: kept };
    const { code, warnings, typeDigests } = make(await compile(templates));
    // Base64 JSON is inert in a comment, whatever the tool names hold.
    const content = `${code}${RECORD_PREFIX}${Buffer.from(JSON.stringify({ typeDigests } satisfies ModuleRecord)).toString("base64")}\n`;
    if (key !== undefined && cache !== undefined) remembered.push(cache.remember(key, content, warnings));
    return { path, content, reused: false, warnings };
  };

  const files: RenderedFile[] = [];
  const warnings: GenerateWarning[] = [];
  const reused: string[] = [];
  const index = new NameScope(["z", "rt"]);
  const modules: { namespace: string; importPath: string; className: string; alias: string }[] = [];
  // The id becomes a file name and a module path: only ids the bundle schema allows get that far.
  for (const server of bundle.servers) {
    if (!ServerIdSchema.safeParse(server.id).success)
      throw new PmcpError("INVALID_INPUT", `server id ${JSON.stringify(server.id)} is not a valid server id`);
  }
  const moduleFiles = planModuleFiles(bundle.servers.map((server) => server.id));
  warnings.push(...moduleFiles.warnings);
  for (const server of bundle.servers) {
    const moduleName = moduleFiles.files.get(server.id)!;
    const file = await produce(`${moduleName}.ts`, server, ({ server: template }) => {
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
      importPath: literal(`./${moduleName}.js`),
      className,
      alias: exported === className ? "" : exported,
    });
  }
  const indexFile = await produce("index.ts", modules, ({ index: template }) => ({
    code: template({ banner: banner(options), modules }),
    warnings: [],
    typeDigests: [],
  }));
  files.push({ path: indexFile.path, content: indexFile.content });
  await Promise.all(remembered);
  return { files, warnings, reused };
}

function banner(options: RenderOptions, server?: BundleServer): string {
  const what = server === undefined ? "" : ` (server "${server.id}")`;
  return `// Generated by pmcp-codegen ${options.generatorVersion} from ${commentText(options.source)}${what}. Do not edit: run pmcp generate.`;
}

function readRecord(text: string): ModuleRecord {
  const line = text.split("\n").find((candidate) => candidate.startsWith(RECORD_PREFIX));
  if (line === undefined) return { typeDigests: [] };
  try {
    const record = JSON.parse(Buffer.from(line.slice(RECORD_PREFIX.length), "base64").toString("utf8")) as Partial<ModuleRecord>;
    return { typeDigests: Array.isArray(record.typeDigests) ? record.typeDigests : [] };
  } catch {
    return { typeDigests: [] };
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

/**
 * Whether `pmcp generate` wrote the file, which it may then replace or remove: the banner as
 * its first line, or (from templates that leave the banner out) the record every module ends with.
 */
export function isGeneratedFile(text: string): boolean {
  return text.startsWith("// Generated by pmcp-codegen ") || text.includes(`\n${RECORD_PREFIX}`);
}
