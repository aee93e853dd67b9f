import { join } from "node:path";
import type { Quality } from "../bundle/quality.js";
import { type QualityChange, qualityChangeLine } from "../bundle/quality-changes.js";
import type { QualitySummary } from "../bundle/quality-summary.js";
import type { LoadedConfig } from "../config/pmcp-config.js";
import { count } from "../count.js";
import { PmcpError } from "../errors.js";
import { type GenerateOutcome, type GenerateSettings, generateClients, type Lang, warningLine } from "../generate/generate-pipeline.js";
import { qualitySummaryLines } from "../report/format.js";
import { version } from "../version.js";
import type { CommandArgs } from "./shared/command.js";
import { DEFAULT_OUTPUT, DEFAULT_RUNTIME_IMPORT } from "./shared/flags.js";
import * as learning from "./shared/infer-observations.js";
import { resolveInputs } from "./shared/inputs.js";
import { printJson, say, warn } from "./shared/output.js";
import { flagRow, settingOf } from "./shared/settings.js";

/**
 * `pmcp generate`: typed clients from a bundle; flags win over `pmcp.config`, which wins over defaults.
 * With a `rust` entry in `pmcp.config` and no `--lang`, one run writes both outputs, one after the other.
 */
export async function generate(args: CommandArgs<"generate">): Promise<void> {
  // Templates and the runtime import shape TypeScript modules only: ignored silently, they would mislead.
  const typescriptOnly = [args.templates === undefined ? "" : "--templates", args.runtimeImport === undefined ? "" : "--runtime-import"];
  if (args.lang === "rust" && typescriptOnly.some(Boolean))
    throw new PmcpError(
      "INVALID_ARGUMENT",
      `${typescriptOnly.filter(Boolean).join(" and ")} apply to TypeScript output only, not --lang rust`,
    );
  const { project, schema } = await resolveInputs(args.schema, { project: "always" });
  const langs = outputLangs(args, project);
  const allSettings = langs.map((lang) => generateSettings(args, project, schema.join(", "), lang));
  // As `schema infer` then `generate`; --check renders the bundle learned in memory and writes neither.
  const inferred =
    args.observations === undefined
      ? undefined
      : await learning.inferObservations(
          args,
          schema,
          args.observations,
          undefined,
          "write one with pmcp schema infer -o <bundle>, then give it as --schema",
        );
  if (inferred !== undefined && !args.check) await learning.saveLearnedBundle(inferred);
  const staleBundle = inferred !== undefined && args.check && !(await learning.upToDate(inferred)) ? [inferred.output] : [];
  const summaries: Summary[] = [];
  for (const settings of allSettings) {
    const outcome = await generateClients(schema, settings, args.check, args.check ? inferred?.result.bundle : undefined).catch(
      (error: unknown) => {
        throw error instanceof PmcpError && error.code === "NOT_FOUND"
          ? new PmcpError("NOT_FOUND", `${error.message}; run pmcp schema export first to write the bundle`, { cause: error })
          : error;
      },
    );
    summaries.push(summaryOf(settings, outcome, inferred === undefined ? undefined : learning.inferredTools(inferred)));
  }
  // Both languages warn about the same schemas: each problem once.
  const warningLines = [...new Set(summaries.flatMap((summary) => summary.warnings.map(warningLine)))];
  const json = (extra: object) =>
    printJson(summaries.length === 1 ? { ...summaryJson(summaries[0]!), ...extra } : { outputs: summaries.map(summaryJson), ...extra });

  if (args.check) {
    const staleFiles = (summary: Summary) => summary.changed.length + summary.removed.length;
    const stale = staleBundle.length + summaries.reduce((sum, summary) => sum + staleFiles(summary), 0);
    for (const line of warningLines) warn(args, line);
    if (args.json) json({ upToDate: stale === 0 });
    for (const path of staleBundle) say(args, `stale: ${path} (observations not inferred yet)`);
    for (const summary of summaries) {
      if (staleFiles(summary) === 0) say(args, `${summary.output} is up to date`);
      for (const [index, path] of summary.changed.entries()) {
        const types = summary.staleTypes[index]!;
        say(args, `stale: ${path}${types.length > 0 ? ` (types changed: ${types.join(", ")})` : ""}`);
      }
      for (const path of summary.removed) say(args, `stale: ${path}`);
    }
    if (stale === 0) return;
    throw new PmcpError(
      "OUT_OF_DATE",
      `${count(stale, staleBundle.length > 0 ? "file" : "generated file")} out of date; run pmcp generate${staleBundle.length > 0 ? " --observations" : ""}`,
    );
  }

  for (const path of summaries.flatMap((summary) => summary.removed))
    say(args, `removed ${path}: generated earlier for a server that is not in this bundle`);
  for (const line of warningLines) warn(args, line);
  if (args.json) json({});
  for (const summary of summaries) {
    const reused = summary.reused.length > 0 ? `, ${summary.reused.length} unchanged` : "";
    say(
      args,
      `Generated ${summary.lang === "rust" ? "Rust clients" : "clients"} in ${summary.output}: ${count(summary.servers, "server")}${reused}, ${count(summary.tools, "tool")}${summary.warnings.length ? `, ${count(summary.warnings.length, "warning")}` : ""}`,
    );
  }
  // Nothing more is said under --quiet or --json: a no-op run need not load the formatting.
  if (!args.quiet && !args.json) {
    // One bundle at one --min-quality: every output has the same quality.
    for (const line of ["Schema quality:", ...qualitySummaryLines(summaries[0]!.quality).map((text) => `  ${text}`)]) say(args, line);
    for (const summary of summaries) {
      // Said only when there are some: an unchanged re-run has nothing to add.
      const changes = summary.qualityChanges ?? [];
      if (changes.length > 0) say(args, `Changes since the previous generation${summaries.length > 1 ? ` of ${summary.output}` : ""}:`);
      for (const change of changes.slice(0, CHANGE_LINES)) say(args, `  ${qualityChangeLine(change)}`);
      if (changes.length > CHANGE_LINES) say(args, `  and ${changes.length - CHANGE_LINES} more (--json lists them all)`);
    }
  }
  if (inferred !== undefined) learning.failIfNotLearned(inferred);
}

/**
 * The languages a run writes: `--lang`, else TypeScript and, when `pmcp.config` has a `rust` entry,
 * Rust too. One `-o` cannot name two folders.
 */
function outputLangs(args: { lang?: Lang | undefined; output?: string | undefined }, project: LoadedConfig | undefined): Lang[] {
  if (args.lang !== undefined) return [args.lang];
  if (project?.config.rust === undefined) return ["typescript"];
  if (args.output !== undefined)
    throw new PmcpError(
      "INVALID_ARGUMENT",
      "-o names one folder, but pmcp.config's rust entry makes generate write two: add --lang typescript or --lang rust",
    );
  return ["typescript", "rust"];
}

/** Most quality changes `generate` prints: a new server of 300 tools is 300 changes, which say little one by one. */
const CHANGE_LINES = 20;

/** The generate flags; each wins over its `pmcp.config` setting. */
export interface GenerateFlags {
  output?: string | undefined;
  templates?: string | undefined;
  runtimeImport?: string | undefined;
  strictObjects?: boolean | undefined;
  minQuality: Quality;
}

/**
 * Where `pmcp generate` and `pmcp dev` write and how they render: the flag, else `pmcp.config`, else
 * the default. Rust clients go to `-o`, else `pmcp.config` `rust.output`, else the default folder.
 */
export function generateSettings(
  flags: GenerateFlags,
  project: LoadedConfig | undefined,
  source: string,
  lang: Lang = "typescript",
): GenerateSettings {
  const out = settingOf(flagRow("generate", "output"), flags.output, project, DEFAULT_OUTPUT, lang === "rust" ? "rust.output" : undefined);
  return {
    lang,
    outDir: out.value,
    outFlag: out.name,
    templatesDir: lang === "rust" ? undefined : settingOf(flagRow("generate", "templates"), flags.templates, project).value,
    options: {
      source,
      runtimeImport: settingOf(flagRow("generate", "runtime-import"), flags.runtimeImport, project, DEFAULT_RUNTIME_IMPORT).value,
      strictObjects: settingOf(flagRow("generate", "strict-objects"), flags.strictObjects, project, false).value,
      minQuality: flags.minQuality,
      generatorVersion: version,
    },
  };
}

interface Summary {
  lang: Lang;
  output: string;
  servers: number;
  tools: number;
  reused: string[];
  warnings: GenerateOutcome["warnings"];
  changed: string[];
  typesChanged: string[];
  /** Per changed file, the tools whose types changed (for --check's lines; not in --json). */
  staleTypes: string[][];
  removed: string[];
  /** With --observations: the tools learned again, as `server/tool`. */
  inferred?: string[];
  /** Tools by source and quality as generated, per server and in total. */
  quality: QualitySummary;
  /** Changes of source or quality since the previous generation; null when it left no record to compare with. */
  qualityChanges: QualityChange[] | null;
}

function summaryOf(settings: GenerateSettings, outcome: GenerateOutcome, inferred: string[] | undefined): Summary {
  const { outDir } = settings;
  return {
    lang: settings.lang,
    output: outDir,
    servers: outcome.servers.length,
    tools: outcome.tools,
    reused: outcome.reused,
    warnings: outcome.warnings,
    changed: outcome.changed.map((file) => join(outDir, file.path)),
    typesChanged: outcome.changed.flatMap((file) => file.typesChanged.map((tool) => `${file.path.replace(/\.(ts|rs)$/, "")}/${tool}`)),
    staleTypes: outcome.changed.map((file) => file.typesChanged),
    removed: outcome.leftover.map((path) => join(outDir, path)),
    ...(inferred === undefined ? {} : { inferred }),
    quality: outcome.quality,
    qualityChanges: outcome.changes ?? null,
  };
}

function summaryJson({ staleTypes: _, ...summary }: Summary) {
  return { ...summary, warnings: summary.warnings.length };
}
