import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "src");

/**
 * The house in layers, as docs/maintainers/architecture.md draws it. A node is a folder of `src/`, or a file directly
 * in it. A module may import its own layer or any layer below, never one above; and no set of nodes
 * may import each other in a circle, within a layer too.
 */
const LAYERS: readonly (readonly string[])[] = [
  // Leaves: imported by anything, importing only each other.
  ["errors.ts", "version.ts", "signals.ts", "count.ts", "files", "json-schema", "providers"],
  // Pure layers: data in, data (or files) out; no servers, no settings, no CLI.
  ["bundle", "ir", "codegen", "normalize", "lint", "diff", "infer", "report"],
  // Services: reach servers, run programs, load settings.
  ["config", "bundle-files", "cache", "generate", "learn", "export", "discover", "server", "tools", "inspect", "exec", "dev", "model"],
  // The top: the CLI and the library's entry.
  ["cli", "commands", "index.ts"],
];

/** What a pure layer or a leaf may load from the runtime: none of these loads the MCP client. */
const RUNTIME_WITHOUT_CLIENT = new Set([
  "@pmcp-codegen/runtime/internal",
  "@pmcp-codegen/runtime/internal/errors",
  "@pmcp-codegen/runtime/internal/json",
  "@pmcp-codegen/runtime/internal/numbers",
  "@pmcp-codegen/runtime/internal/patterns",
  "@pmcp-codegen/runtime/internal/files",
  "@pmcp-codegen/runtime/internal/lock",
]);

/**
 * What reaches the disk, holds a lock, watches files or waits on time. A pure layer holds only
 * functions of their inputs, and a leaf too, but `files/`, whose job it is (docs/maintainers/architecture.md): the
 * services around them do the I/O.
 */
const EFFECTS = [
  /^(node:)?fs(\/promises)?$/,
  /^(node:)?timers(\/promises)?$/,
  /^proper-lockfile$/,
  /^chokidar$/,
  /^@pmcp-codegen\/runtime\/internal\/(files|lock)$/,
];
const TIMERS = /\b(setTimeout|setInterval|setImmediate)\(/;
/** The leaf whose job is reading and writing files. */
const EFFECTS_ALLOWED = new Set(["files"]);
interface Import {
  from: string;
  /** A file of src/ for a relative import, else the package specifier. */
  to: string;
  /** `import type` / `export type`: erased, loads nothing. */
  typeOnly: boolean;
}

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".ts"))
    .map((file) => join(SRC, file));
}

/** Every static, re-exporting and dynamic import of a file, as TypeScript parses it. */
function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: Import[] = [];
  const add = (specifier: string, typeOnly: boolean) => {
    const to = specifier.startsWith(".") ? resolve(dirname(file), specifier).replace(/\.js$/, ".ts") : specifier;
    found.push({ from: file, to, typeOnly });
  };
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const clause = ts.isImportDeclaration(node) ? node.importClause : undefined;
      const named = clause?.namedBindings !== undefined && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings : undefined;
      const typeOnly =
        (ts.isImportDeclaration(node) ? clause?.isTypeOnly === true : node.isTypeOnly) ||
        (named !== undefined &&
          clause?.name === undefined &&
          named.elements.length > 0 &&
          named.elements.every((element) => element.isTypeOnly));
      add(node.moduleSpecifier.text, typeOnly);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      add(node.arguments[0].text, false);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The node a file of src/ belongs to: its top folder, or its own name when it sits in src/ itself. */
function nodeOf(file: string): string {
  return relative(SRC, file).split("/")[0]!;
}

function layerOf(node: string): number {
  return LAYERS.findIndex((layer) => layer.includes(node));
}

const files = sourceFiles();
const imports = files.flatMap(importsOf);
const local = imports.filter((entry) => entry.to.startsWith(`${SRC}/`));

describe("the layers of src/", () => {
  it("places every folder and top-level file in a layer", () => {
    const nodes = [...new Set(files.map(nodeOf))].sort();
    expect(nodes.filter((node) => layerOf(node) === -1)).toEqual([]);
  });

  it("never imports upward: pure layers no service, services not the CLI", () => {
    expect(upwardImports(local)).toEqual([]);
  });

  it("has no cycle among its folders", () => {
    const edges = new Map<string, Set<string>>();
    for (const entry of local) {
      const [from, to] = [nodeOf(entry.from), nodeOf(entry.to)];
      if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    }
    expect(cyclesOf(edges)).toEqual([]);
  });

  it("does no I/O in a pure layer or a leaf but files/: no disk, lock, watcher or timer", () => {
    expect(impureFiles(files, imports)).toEqual([]);
  });

  it("loads no MCP client from a leaf or a pure layer", () => {
    const low = imports.filter((entry) => layerOf(nodeOf(entry.from)) <= 1 && !entry.typeOnly && !entry.to.startsWith("/"));
    const client = low
      .filter(
        (entry) =>
          entry.to.startsWith("@modelcontextprotocol/") ||
          (entry.to.startsWith("@pmcp-codegen/runtime") && !RUNTIME_WITHOUT_CLIENT.has(entry.to)),
      )
      .map((entry) => `${relative(SRC, entry.from)} → ${entry.to}`);
    expect(client).toEqual([]);
  });
});

describe("the Layout table of docs/maintainers/layout.md", () => {
  const layout = readFileSync(join(SRC, "..", "docs/maintainers/layout.md"), "utf8");
  const named = [
    ...layout.matchAll(/`(src\/[^`]*|packages\/[^`]*|templates\/|generated\/|test\/[^`]*|examples\/|bench\/|scripts\/)`/g),
  ].map((match) => match[1]!);

  it("names every folder and top-level file of src/", () => {
    const nodes = [...new Set(files.map(nodeOf))].map((node) => (node.endsWith(".ts") ? `src/${node}` : `src/${node}/`));
    expect(nodes.filter((node) => !named.includes(node)).sort()).toEqual([]);
  });

  it("names nothing that is not there", () => {
    const root = join(SRC, "..");
    const missing = named.filter((path) => !path.includes("*") && !existsSync(join(root, path)));
    expect(missing).toEqual([]);
  });
});

describe("the import scan itself", () => {
  it("finds a planted cycle and a planted upward import", () => {
    const edges = new Map([
      ["ir", new Set(["bundle"])],
      ["bundle", new Set(["codegen"])],
      ["codegen", new Set(["ir"])],
      ["cli", new Set(["ir"])],
    ]);
    expect(cyclesOf(edges)).toEqual(["bundle → codegen → ir"]);
    const planted = [
      { from: join(SRC, "codegen/a.ts"), to: join(SRC, "cli/b.ts"), typeOnly: true },
      { from: join(SRC, "exec/a.ts"), to: join(SRC, "config/b.ts"), typeOnly: false },
      { from: join(SRC, "config/a.ts"), to: join(SRC, "errors.ts"), typeOnly: false },
    ];
    expect(upwardImports(planted)).toEqual(["codegen/a.ts → cli/b.ts"]);
  });

  it("finds planted I/O in a pure layer and a leaf, by import and by timer, and none in files/ or a service", () => {
    const planted = [
      { from: join(SRC, "ir/a.ts"), to: "node:fs/promises", typeOnly: false },
      { from: join(SRC, "json-schema/b.ts"), to: "proper-lockfile", typeOnly: false },
      { from: join(SRC, "files/c.ts"), to: "node:fs", typeOnly: false },
      { from: join(SRC, "dev/d.ts"), to: "chokidar", typeOnly: false },
      { from: join(SRC, "normalize/e.ts"), to: "node:fs", typeOnly: true },
      { from: join(SRC, "report/g.ts"), to: join(SRC, "files/write-output.ts"), typeOnly: false },
    ];
    const texts = new Map([[join(SRC, "diff/f.ts"), "export const later = () => setTimeout(() => {}, 10);"]]);
    expect(impureFiles([...planted.map((entry) => entry.from), ...texts.keys()], planted, (file) => texts.get(file) ?? "")).toEqual([
      "diff/f.ts",
      "ir/a.ts",
      "json-schema/b.ts",
      "report/g.ts",
    ]);
  });
});

/** The files of pure layers and leaves (but files/) that import an effect or start a timer, relative to src/. */
function impureFiles(
  all: readonly string[],
  entries: readonly Import[],
  textOf: (file: string) => string = (file) => readFileSync(file, "utf8"),
): string[] {
  const held = (file: string) => layerOf(nodeOf(file)) <= 1 && !EFFECTS_ALLOWED.has(nodeOf(file));
  // files/ itself is I/O to whoever imports it.
  const effect = (to: string) =>
    EFFECTS.some((pattern) => pattern.test(to)) || EFFECTS_ALLOWED.has(to.startsWith(`${SRC}/`) ? nodeOf(to) : "");
  const byImport = entries.filter((entry) => !entry.typeOnly && held(entry.from) && effect(entry.to));
  const byTimer = all.filter((file) => held(file) && TIMERS.test(textOf(file)));
  return [...new Set([...byImport.map((entry) => entry.from), ...byTimer].map((file) => relative(SRC, file)))].sort();
}

function upwardImports(entries: readonly Import[]): string[] {
  return entries
    .filter((entry) => layerOf(nodeOf(entry.to)) > layerOf(nodeOf(entry.from)))
    .map((entry) => `${relative(SRC, entry.from)} → ${relative(SRC, entry.to)}`);
}

/** Each strongly connected set of more than one node (Tarjan), its members sorted, joined by arrows. */
function cyclesOf(edges: ReadonlyMap<string, ReadonlySet<string>>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const cycles: string[] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    for (const next of edges.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const members: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      members.push(member);
    } while (member !== node);
    if (members.length > 1) cycles.push(members.sort().join(" → "));
  };
  for (const node of edges.keys()) if (!index.has(node)) visit(node);
  return cycles.sort();
}
