import { access, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CompositionClient } from "@pmcp-codegen/runtime";
import { adoptConnection, strayOutputWarning } from "@pmcp-codegen/runtime/internal/servers";
import { carryInferred } from "../bundle/carry-inferred.js";
import { DEFAULT_BUNDLE_PATH } from "../bundle/defaults.js";
import type { Quality } from "../bundle/quality.js";
import { canonicalBundle } from "../bundle/serialize.js";
import { duplicateIdProblem } from "../bundle/server-naming.js";
import type { BundleServer } from "../bundle/types.js";
import { type ReadResult, readSchemaFiles, singleBundleFile } from "../bundle-files/read.js";
import { type LoadedConfig, loadPmcpConfig } from "../config/pmcp-config.js";
import { PmcpError } from "../errors.js";
import type { CheckerHostOptions } from "../exec/checker-host.js";
import { ExecSession, type SessionServers } from "../exec/exec-session.js";
import { EXEC_SETTINGS, type ExecSettingKey, type ExecSettings, limitsOf } from "../exec/limits.js";
import { type ListedServer, ListingRefresh } from "../exec/listing-refresh.js";
import { QuickJsExecutor } from "../exec/quickjs-executor.js";
import { exportServers, strayOutputWarnings } from "../export/export-servers.js";
import { execSettingFlag, SCHEMA } from "./shared/flags.js";
import { warn } from "./shared/output.js";
import { flagRow, settingOf } from "./shared/settings.js";
import { resolveSources, type SourceFlags } from "./shared/source-flags.js";

/** The flags of `pmcp serve exec` and `pmcp exec`, as parsed. */
export interface ExecFlags extends SourceFlags, Partial<Record<ExecSettingKey, number | undefined>> {
  schema: string[];
  observe: string | undefined;
  minQuality: Quality;
  strictObjects?: boolean | undefined;
  learn: boolean;
  /** `--quiet`: no warnings. */
  quiet?: boolean | undefined;
}

/** Budget for listing each server's tools at start-up. */
const LISTING_TIMEOUT_MS = 30_000;

export interface StartedSession {
  /** Answers at once; its servers and type-checker start in the background (`session.ready()`). */
  session: ExecSession;
  /** The ids programs call the servers by, when every server was named before connecting (--id, a config key); else undefined. */
  serverIds: string[] | undefined;
  close(): Promise<void>;
}

/**
 * Starts what both exec commands run programs with, without waiting for it: types the servers
 * (from the `--schema` bundle, else by listing them), builds the declarations and the checker,
 * and a CompositionClient for the same servers, all in the background; `session.ready()` says
 * when it is done or what failed. Only bad flags and a bad pmcp.config fail here. A server typed
 * by the bundle is started by a program's first call of it, not before. `verb` names the command in messages;
 * `loaded` is pmcp.config, when the caller has read it already.
 */
export async function startSession(
  flags: ExecFlags,
  verb: string,
  checker: CheckerHostOptions = {},
  startAfter: Promise<void> = Promise.resolve(),
  loaded: Promise<LoadedConfig | undefined> = loadPmcpConfig(),
): Promise<StartedSession> {
  const project = await loaded;
  const sources = await resolveSources(flags, project, verb);
  const schema = await schemaPaths(flags, project);
  const named = sources.flatMap((source) => (source.id === undefined ? [] : [{ id: source.id, label: source.label }]));
  const repeated = duplicateIdProblem(named);
  if (repeated !== undefined) throw new PmcpError("INVALID_ARGUMENT", repeated);
  const settings = Object.fromEntries(
    (Object.keys(EXEC_SETTINGS) as ExecSettingKey[]).map((key) => [
      key,
      settingOf(execSettingFlag(key), flags[key], project, EXEC_SETTINGS[key].default).value,
    ]),
  ) as ExecSettings;
  const limits = limitsOf(settings);
  const strictObjects = settingOf(flagRow("exec", "strict-objects"), flags.strictObjects, project, false).value;
  // Learning needs the observations: without --observe they go to a folder removed at the end.
  const scratch = flags.learn && flags.observe === undefined ? await mkdtemp(join(tmpdir(), "pmcp-learn-")) : undefined;
  const observeDir = flags.observe ?? scratch;
  const executor = new QuickJsExecutor({ limits, workers: settings.maxPrograms });
  const stopping = new AbortController();
  let client: CompositionClient | undefined;
  let refresh: ListingRefresh | undefined;

  const output = { quiet: flags.quiet === true, json: false };
  const strayTold = new Set<string>();
  const servers = (async (): Promise<SessionServers> => {
    await startAfter;
    if (stopping.signal.aborted) throw new PmcpError("SERVER_FAILED", "stopped before the servers started");
    const read = schema.length === 0 ? undefined : await readSchemaFiles(schema);
    const given = read?.bundle;
    const recorded = new Map(given?.servers.map((server) => [server.id, server]));
    // Only an id known before connecting (--id, a config key) can name a server of the bundle.
    const typed = sources.flatMap((source): ListedServer[] => {
      const server = source.id === undefined ? undefined : recorded.get(source.id);
      return server === undefined ? [] : [{ id: server.id, source, server, ttlMs: undefined }];
    });
    const unknown = sources.filter((source) => !typed.some((entry) => entry.source === source));
    // Listed on connections the client then calls on: each server starts once.
    const outcomes =
      unknown.length === 0
        ? []
        : await exportServers(unknown, {
            timeoutMs: LISTING_TIMEOUT_MS,
            concurrency: unknown.length,
            signal: stopping.signal,
            keepConnections: true,
          });
    const kept = outcomes.flatMap((outcome) =>
      outcome.ok && outcome.connection !== undefined ? [{ id: outcome.server.id, connection: outcome.connection }] : [],
    );
    const abandon = async (error: PmcpError) => {
      await Promise.all(kept.map(({ connection }) => connection.close()));
      throw error;
    };
    const failures = outcomes.flatMap((outcome) =>
      outcome.ok ? [] : [`server "${outcome.source.id ?? outcome.source.label}": ${outcome.message}`],
    );
    if (failures.length > 0) return abandon(new PmcpError("SERVER_FAILED", failures.join("\n")));
    // One warning per server, from its listing here or, typed by --schema, from the client's connection.
    for (const outcome of outcomes) if (outcome.ok && outcome.strayOutput !== undefined) strayTold.add(outcome.server.id);
    for (const line of strayOutputWarnings(outcomes)) warn(output, line);
    const listed = [
      ...typed,
      ...outcomes.flatMap((outcome): ListedServer[] =>
        outcome.ok ? [{ id: outcome.server.id, source: outcome.source, server: outcome.server, ttlMs: outcome.ttlMs }] : [],
      ),
    ];
    const repeatedListed = duplicateIdProblem(listed.map((entry) => ({ id: entry.id, label: entry.source.label })));
    if (repeatedListed !== undefined) return abandon(new PmcpError("INVALID_ARGUMENT", repeatedListed));
    if (stopping.signal.aborted) return abandon(new PmcpError("SERVER_FAILED", "stopped while the servers were listed"));

    const build = (servers: BundleServer[]) => carryInferred(canonicalBundle(servers), given && canonicalBundle(given.servers));
    // Listed under their ids: a source named only by its label is called by the id it was listed as.
    client = CompositionClient.fromSources(
      listed.map((entry) => ({ ...entry.source, id: entry.id })),
      {
        timeoutMs: limits.timeoutMs,
        onStrayOutput: (serverId, stray) => {
          if (!strayTold.has(serverId)) warn(output, strayOutputWarning(serverId, stray));
        },
        ...(flags.maxMessageBytes === undefined ? {} : { maxMessageBytes: flags.maxMessageBytes }),
        ...(observeDir === undefined ? {} : { observe: { dir: observeDir } }),
      },
    );
    for (const { id, connection } of kept) adoptConnection(client, id, connection);
    // Servers whose listing says how long it stays good are listed again when it runs out.
    refresh = new ListingRefresh(listed, { timeoutMs: LISTING_TIMEOUT_MS, build, apply: (next) => session.replaceBundle(next) });
    return {
      bundle: build(listed.map((entry) => entry.server)),
      client,
      ...(flags.learn && read !== undefined ? learnInto(schema, read.files) : {}),
    };
  })();

  const session = ExecSession.start(
    {
      executor,
      limits,
      minQuality: flags.minQuality,
      strictObjects,
      checker,
      ...(flags.learn && observeDir !== undefined ? { learnFrom: observeDir } : {}),
    },
    servers,
  );
  let closing: Promise<void> | undefined;
  const close = async () => {
    stopping.abort();
    // Settles once the start has, so that what it made is there to close.
    await session.close();
    refresh?.close();
    await executor.close();
    await client?.close();
    if (scratch !== undefined) await rm(scratch, { recursive: true, force: true });
  };
  return {
    session,
    serverIds: named.length === sources.length ? named.map((entry) => entry.id).sort() : undefined,
    // One close for every caller: a second one, overlapping (a signal's and the command's own), found the
    // servers already taken and returned while they were still being stopped.
    close() {
      closing ??= close();
      return closing;
    },
  };
}

/**
 * The schema files that type the servers: `--schema`; with `--learn` and none given, pmcp.config's
 * `bundle` (else the default path beside it) when there is one, so that what a session learns goes
 * where `pmcp generate` reads and the next session starts from it. Without `--learn` nothing is read
 * unless told.
 */
async function schemaPaths(flags: ExecFlags, project: LoadedConfig | undefined): Promise<string[]> {
  if (flags.schema.length > 0 || !flags.learn || project === undefined) return flags.schema;
  const bundle = settingOf(SCHEMA, undefined, project, DEFAULT_BUNDLE_PATH).value;
  if (await exists(bundle)) return [bundle];
  learnWarning(`learned types stay in memory: pmcp.config's bundle ${bundle} does not exist (pmcp schema export writes it)`);
  return [];
}

/** The one bundle file learned blocks are written into; several files, or PMCP's per-server files, have no single place for them. */
function learnInto(schema: readonly string[], files: ReadResult["files"]): { learnInto?: string } {
  const file = singleBundleFile(files);
  if (file !== undefined) return { learnInto: file };
  const what = files.length === 1 ? "a PMCP foundation file, which has no inferred blocks" : `${files.length} schema files, not one bundle`;
  learnWarning(`learned types stay in memory: ${schema.join(", ")} is ${what} (pmcp schema infer -o <bundle> writes one)`);
  return {};
}

function learnWarning(message: string): void {
  process.emitWarning(message, "PmcpLearnWarning");
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}
