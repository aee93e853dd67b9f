import { DEFAULT_MIN_QUALITY, type Quality } from "../bundle/quality.js";
import { checkServerIds } from "../bundle/server-ids.js";
import type { Bundle, BundleServer } from "../bundle/types.js";
import { camelCase, clientClassName, NameScope } from "../ir/naming.js";
import { commentText, literal } from "./code.js";
import { encodeGeneration, type GenerationRecord, type NextGeneration, nextGeneration } from "./generation-record.js";
import { BANNER_PREFIX, withRecord } from "./module-record.js";
import { planModuleFiles, planServerModule } from "./plan.js";
import type { GenerateWarning } from "./server-plan.js";
import { type IndexTemplateView, serverView, TEMPLATE_VIEW_VERSION } from "./template-view.js";
import type { CompiledTemplates } from "./templates.js";

export interface RenderOptions {
  /** Where the bundle came from, for the banner. */
  source: string;
  runtimeImport: string;
  strictObjects: boolean;
  /** The lowest quality of inferred schema used for a tool that declares none (default `low`). */
  minQuality?: Quality;
  generatorVersion: string;
  /**
   * Leave each result parser's type to the compiler, to be checked against the declared type where a
   * method passes it on (a definition's is annotated, as its recursion needs): for the generator's own
   * tests, which also check that the two are mutually assignable. Otherwise a parser is asserted to be
   * `z.ZodType` of its declared type, both made from one schema, and a user's compiler never derives the
   * type of a zod expression, which costs it several times the rest of a module.
   */
  checkParsers?: boolean;
}

export interface RenderedFile {
  /** Relative to the output folder. */
  path: string;
  content: string;
}

export interface RenderResult {
  files: RenderedFile[];
  warnings: GenerateWarning[];
}

/** One file of a render, still to be made: what its text depends on, and how it is made. */
export interface RenderStep {
  /** Relative to the output folder. */
  path: string;
  /** The server whose module it is; undefined for `index.ts`. */
  server: string | undefined;
  /** Everything the text depends on besides the templates and the generator's code, as JSON data. */
  inputs: unknown;
  make(templates: CompiledTemplates): { content: string; warnings: GenerateWarning[] };
}

export interface RenderSteps {
  steps: RenderStep[];
  /** Problems of the bundle as a whole (module file names), before those of each file. */
  warnings: GenerateWarning[];
  /** What `index.ts` records about this generation, and the changes since `previous`. */
  generation: NextGeneration;
}

/**
 * One module per server plus `index.ts`: a function of the bundle, the options, the templates,
 * the generator version and the record of the previous generation only, with no file read or written.
 */
export function renderClients(
  bundle: Bundle,
  options: RenderOptions,
  templates: CompiledTemplates,
  previous?: GenerationRecord,
): RenderResult {
  const { steps, warnings: planned } = renderSteps(bundle, options, previous);
  const warnings = [...planned];
  const files = steps.map((step) => {
    const made = step.make(templates);
    warnings.push(...made.warnings);
    return { path: step.path, content: made.content };
  });
  return { files, warnings };
}

/**
 * The files renderClients makes, each still to be made, with what it is made from: whoever
 * holds a file made earlier from the same inputs (the reuse cache) need not make it again.
 * Names are resolved here, so each file is made on its own.
 */
export function renderSteps(bundle: Bundle, options: RenderOptions, previous?: GenerationRecord): RenderSteps {
  checkServerIds(bundle.servers);
  const plan = { strictObjects: options.strictObjects, minQuality: options.minQuality ?? DEFAULT_MIN_QUALITY };
  const checkParsers = options.checkParsers === true;
  const settings = [options.generatorVersion, options.runtimeImport, plan.strictObjects, plan.minQuality, options.source, checkParsers];
  const moduleFiles = planModuleFiles(bundle.servers.map((server) => server.id));
  const index = new NameScope(["z", "rt"]);
  const modules: IndexTemplateView["modules"] = [];
  const steps: RenderStep[] = [];
  for (const server of bundle.servers) {
    const moduleName = moduleFiles.files.get(server.id)!;
    steps.push({
      path: `${moduleName}.ts`,
      server: server.id,
      inputs: [settings, server],
      make: ({ server: template }) => {
        const module = planServerModule(server, plan);
        const code = template(
          serverView(module, {
            banner: banner(options, server),
            runtimeImport: literal(options.runtimeImport),
            parsersImport: literal(parsersImport(options.runtimeImport)),
            checkParsers,
          }),
        );
        return { content: withRecord(code, module.typeDigests), warnings: module.warnings };
      },
    });
    const className = clientClassName(server.id);
    const exported = index.claim(className).name;
    modules.push({
      namespace: index.claim(camelCase(server.id, "server")).name,
      importPath: literal(`./${moduleName}.js`),
      className,
      alias: exported === className ? "" : exported,
    });
  }
  const generation = nextGeneration(bundle, previous, plan.minQuality);
  steps.push({
    path: "index.ts",
    server: undefined,
    inputs: [settings, modules, generation.record],
    make: ({ index: template }) => ({
      content: withRecord(template(indexView(banner(options), modules)), [], encodeGeneration(generation.record)),
      warnings: [],
    }),
  });
  return { steps, warnings: moduleFiles.warnings, generation };
}

/**
 * The module of the runtime's parsers: a package's `/parsers` subpath, or, for the path of the
 * runtime's entry module (`…/dist/index.js`), `parsers.js` beside it.
 */
export function parsersImport(runtimeImport: string): string {
  const file = /^(.*\/)[^/]*(\.[cm]?[jt]s)$/.exec(runtimeImport);
  return file === null ? `${runtimeImport}/parsers` : `${file[1]}parsers${file[2]}`;
}

function banner(options: RenderOptions, server?: BundleServer): string {
  const what = server === undefined ? "" : ` (server "${server.id}")`;
  return `${BANNER_PREFIX}${options.generatorVersion} from ${commentText(options.source)}${what}. Do not edit: run pmcp generate.`;
}

function indexView(banner: string, modules: IndexTemplateView["modules"]): IndexTemplateView {
  return { viewVersion: TEMPLATE_VIEW_VERSION, banner, modules };
}
