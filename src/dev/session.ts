import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { errorMessage, type ServerSource } from "@pmcp-codegen/runtime/internal";
import type { QualityChange } from "../bundle/quality-changes.js";
import { canonicalBundle, toJsonText } from "../bundle/serialize.js";
import { duplicateIdProblem } from "../bundle/server-naming.js";
import type { Bundle, BundleServer } from "../bundle/types.js";
import { ReuseCache } from "../cache/reuse-cache.js";
import { type BundleChange, diffBundles } from "../diff/bundle-diff.js";
import { assembleBundle, serversIn } from "../export/assemble.js";
import { type GenerateSettings, renderRun, warningLine, writeRun } from "../generate/generate-pipeline.js";
import { withBundleLock } from "../learn/bundle-lock.js";
import { Coalescer } from "./coalescer.js";
import { ObservationFollower } from "./follow-observations.js";
import { ServerLink } from "./server-link.js";

/** What `pmcp dev` works from, read again whenever pmcp.config, the config file or the templates change. */
export interface DevInputs {
  sources: ServerSource[];
  bundlePath: string;
  /** What chose `bundlePath`, for error messages. */
  bundleFlag: string;
  settings: GenerateSettings;
  /** The folder of observation logs learned from as they are written, if any. */
  observations: string | undefined;
}

/** Where a session's lines go: changes on stdout, states of servers and problems on stderr. */
export interface DevOutput {
  /** One regeneration: its judged changes, the tools whose quality changed, and the files it wrote and removed. */
  regenerated(
    changes: readonly BundleChange[],
    quality: readonly QualityChange[],
    written: readonly string[],
    removed: readonly string[],
  ): void;
  status(line: string): void;
  warn(line: string): void;
}

export interface DevOptions {
  timeoutMs: number;
  debounceMs: number;
  output: DevOutput;
}

/**
 * `pmcp dev`'s loop: one ServerLink per source; a burst of changes (a `list_changed`, a
 * reconnection, new inputs) becomes one regeneration that writes the bundle and the modules
 * whose bytes changed, in one all-or-nothing step.
 */
export class DevSession {
  private inputs!: DevInputs;
  /** Reloads run one after another: two quick saves must not connect one new server twice. */
  private reloading: Promise<void> = Promise.resolve();
  private links = new Map<string, ServerLink>();
  /** The bundle on disk: what each change is judged against, and where a server not yet reached is taken from. */
  private current: Bundle = canonicalBundle([]);
  private currentText: string | undefined;
  private readonly regenerations: Coalescer;
  private readonly warned = new Set<string>();
  /** The listings the bundle on disk was made from, by id: only servers whose listing is another object are diffed. */
  private written = new Map<string, BundleServer>();
  private follower: ObservationFollower | undefined;
  /**
   * Something besides the observation logs asked for this regeneration (a server, the inputs): the
   * modules are rendered again even when the bundle stays as it was. Logs alone, with nothing learned
   * in substance, leave everything as it was without rendering.
   */
  private renderAnyway = true;
  /**
   * Set once every server's first attempt is over: a server listed sooner than another waits for it,
   * so that the start writes once, from every listing, rather than once with the slower servers'
   * entries taken from the disk and again when they answer.
   */
  private started = false;
  private stopping = false;

  constructor(
    private readonly load: () => Promise<DevInputs>,
    private readonly options: DevOptions,
  ) {
    this.regenerations = new Coalescer(options.debounceMs, () => this.regenerate());
  }

  /** Connects every server, waits for each first attempt, and writes once. Bad inputs throw. */
  async start(): Promise<void> {
    this.inputs = await this.load();
    this.follow(this.inputs.observations);
    await this.readCurrent();
    this.connect(this.inputs.sources);
    await Promise.all([...this.links.values()].map((link) => link.tried));
    this.started = true;
    await this.regenerations.runNow();
  }

  /**
   * Reads the inputs again; a servers list that changed connects the new servers and closes the
   * removed ones, and every server kept is listed again: saving pmcp.config is also how to ask a
   * server that cannot announce changes (no event stream) for its tools.
   */
  reload(): Promise<void> {
    // A reload that fails is reported; the chain stays usable for the next one.
    this.reloading = this.reloading
      .then(() => this.readInputs())
      .catch((error: unknown) => this.options.output.warn(`reloading failed: ${errorMessage(error)}`));
    return this.reloading;
  }

  /** The templates folder of the inputs in force, which the caller watches. */
  get templatesDir(): string | undefined {
    return this.inputs.settings.templatesDir;
  }

  /** The folder of observation logs of the inputs in force, which the caller watches. */
  get observationsDir(): string | undefined {
    return this.inputs.observations;
  }

  /**
   * The bundle as it is on disk now. Another process may have written it since dev did (`serve exec
   * --learn`, `schema infer`): the blocks it learned are then carried into the next write, not
   * overwritten from memory. The bytes on disk are compared, not the bundle read from them written
   * again: a file written otherwise (indented by hand) would be written anew for nothing.
   */
  private async readCurrent(): Promise<void> {
    const text = await readFile(this.inputs.bundlePath, "utf8").catch(() => undefined);
    if (text === this.currentText) return;
    this.current = canonicalBundle(text === undefined ? [] : serversIn(this.inputs.bundlePath, text));
    this.currentText = text;
  }

  /** An observation log changed: learned from in the next regeneration. */
  observed(): void {
    this.request();
  }

  /** A regeneration for what changed; the start's own run takes in whatever changed before it. */
  private request(): void {
    if (this.started) this.regenerations.request();
  }

  private async readInputs(): Promise<void> {
    let inputs: DevInputs;
    try {
      inputs = await this.load();
    } catch (error) {
      return this.options.output.warn(`${errorMessage(error)}; keeping the previous settings`);
    }
    if (this.stopping) return;
    this.inputs = inputs;
    this.follow(inputs.observations);
    const keep = new Set(inputs.sources.map(sourceKey));
    const gone = [...this.links].filter(([key]) => !keep.has(key));
    for (const [key, link] of gone) {
      this.links.delete(key);
      this.options.output.status(`${link.label}: closed (no longer configured)`);
    }
    await Promise.all(gone.map(([, link]) => link.close()));
    for (const link of this.links.values()) link.markStale();
    this.connect(inputs.sources.filter((source) => !this.links.has(sourceKey(source))));
    this.renderAnyway = true;
    this.request();
  }

  /** Learns from `dir` from now on; the same folder keeps what was read of it. */
  private follow(dir: string | undefined): void {
    if (dir !== this.follower?.dir) this.follower = dir === undefined ? undefined : new ObservationFollower(dir);
  }

  /** Waits for a write in progress, then closes every connection; stdio servers' processes end with them. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.regenerations.stop();
    await Promise.all([...this.links.values()].map((link) => link.close()));
  }

  private connect(sources: readonly ServerSource[]): void {
    // A start or a reload still under way when Ctrl-C came connects nothing that stop() would not close.
    if (this.stopping) return;
    for (const source of sources) {
      const link = new ServerLink(source, this.options.timeoutMs, {
        changed: () => {
          this.renderAnyway = true;
          this.request();
        },
        status: (line) => {
          if (!this.stopping) this.options.output.status(line);
        },
        warn: (line) => this.options.output.warn(line),
      });
      this.links.set(sourceKey(source), link);
    }
  }

  private async regenerate(): Promise<void> {
    const links = [...this.links.values()];
    await Promise.all(links.map((link) => link.refresh()));
    if (this.stopping) return;
    const { bundlePath, bundleFlag, settings } = this.inputs;
    const renderAnyway = this.renderAnyway;
    this.renderAnyway = false;
    try {
      // Under the bundle's lock, from the file as it is then: what another writer added stays.
      await withBundleLock(bundlePath, () => this.writeRegeneration(links, renderAnyway));
    } catch (error) {
      // The next regeneration tries again, whatever asks for it.
      this.renderAnyway ||= renderAnyway;
      if (!this.stopping)
        this.options.output.warn(`cannot update ${bundlePath} and ${settings.outDir} (${bundleFlag}): ${errorMessage(error)}`);
    }
  }

  private async writeRegeneration(links: ServerLink[], renderAnyway: boolean): Promise<void> {
    const { bundlePath, settings } = this.inputs;
    await this.readCurrent();
    const servers = this.servers(links);
    const assembled = assembleBundle(servers, this.current.servers);
    const learned = this.follower === undefined ? { bundle: assembled.bundle, problems: [] } : await this.follower.learn(assembled.bundle);
    for (const line of learned.problems) this.warnOnce(line);
    const bundle = learned.bundle;
    const text = toJsonText(bundle);
    if (!renderAnyway && text === this.currentText) return;
    const run = await renderRun(bundle, settings, await ReuseCache.open());
    for (const line of [...assembled.warnings, ...run.warnings.map(warningLine)]) this.warnOnce(line);
    const bundleFile = text === this.currentText ? [] : [{ path: bundlePath, content: text }];
    if (bundleFile.length + run.changed.length + run.leftover.length === 0) return;
    const listed = new Map(servers.map((server) => [server.id, server]));
    const changes = diffBundles(this.only(this.current, listed), this.only(bundle, listed));
    // What changed since the generation index.ts records: the last one dev (or generate) wrote.
    const quality = (run.generation.changes ?? []).filter(
      (change) => change.from !== undefined && change.to !== undefined && change.from.quality !== change.to.quality,
    );
    await writeRun(run, settings, bundleFile);
    this.current = bundle;
    this.currentText = text;
    this.written = listed;
    const written = [...bundleFile.map((file) => file.path), ...run.changed.map((file) => join(settings.outDir, file.path))];
    this.options.output.regenerated(
      changes,
      quality,
      written,
      run.leftover.map((path) => join(settings.outDir, path)),
    );
  }

  /**
   * Each link's last listing; a server not reached yet keeps its entry of the bundle on disk, so a
   * server that is slow to start does not lose its module. The first of two servers with one id wins.
   */
  private servers(links: readonly ServerLink[]): BundleServer[] {
    const listed = links.flatMap((link) => {
      const server = link.listing ?? this.current.servers.find((candidate) => candidate.id === link.source.id);
      return server === undefined ? [] : [{ server, label: link.source.label }];
    });
    const repeated = duplicateIdProblem(listed.map(({ server, label }) => ({ id: server.id, label })));
    if (repeated !== undefined) this.warnOnce(`${repeated}; keeping the first`);
    return listed.map(({ server }) => server).filter((server, index, all) => all.findIndex((other) => other.id === server.id) === index);
  }

  /** The servers of `bundle` whose listing changed since the last write: diffing the other 49 of 50 would find nothing, slowly. */
  private only(bundle: Bundle, listed: ReadonlyMap<string, BundleServer>): Bundle {
    const changed = (id: string) => this.written.get(id) === undefined || this.written.get(id) !== listed.get(id);
    return { ...bundle, servers: bundle.servers.filter((server) => changed(server.id)) };
  }

  private warnOnce(line: string): void {
    if (this.warned.has(line)) return;
    this.warned.add(line);
    this.options.output.warn(line);
  }
}

/** Two sources are the same server when everything about them is: a changed command line or URL is a new server. */
function sourceKey(source: ServerSource): string {
  return JSON.stringify(source);
}
