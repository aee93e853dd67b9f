import type { Tool } from "../bundle/types.js";

/** Words that cannot name a binding or a type in strict-mode TypeScript modules. */
const RESERVED_WORDS = new Set([
  "break",
  "case",
  "catch",
  "class",
  "const",
  "continue",
  "debugger",
  "default",
  "delete",
  "do",
  "else",
  "enum",
  "export",
  "extends",
  "false",
  "finally",
  "for",
  "function",
  "if",
  "import",
  "in",
  "instanceof",
  "new",
  "null",
  "return",
  "super",
  "switch",
  "this",
  "throw",
  "true",
  "try",
  "typeof",
  "var",
  "void",
  "while",
  "with",
  "as",
  "implements",
  "interface",
  "let",
  "package",
  "private",
  "protected",
  "public",
  "static",
  "yield",
  "await",
  "any",
  "boolean",
  "number",
  "string",
  "symbol",
  "bigint",
  "object",
  "never",
  "unknown",
  "undefined",
  "type",
  "arguments",
  "eval",
  "async",
  "of",
  "satisfies",
  "keyof",
  "infer",
  "is",
  "asserts",
  "unique",
  "readonly",
  "declare",
  "module",
  "namespace",
  "require",
  "global",
  "constructor",
  "prototype",
  "__proto__",
]);

/** Words of a name: splits on non-alphanumerics and on lower-to-upper case changes. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

/** `delete-record` → `DeleteRecord`; digit-leading names get a `_` prefix; empty gets `fallback`. */
export function pascalCase(text: string, fallback = "Unnamed"): string {
  const name = words(text).map(capitalize).join("");
  return safeIdentifier(name || fallback);
}

/** `delete-record` → `deleteRecord`; reserved words get a `_` suffix. */
export function camelCase(text: string, fallback = "unnamed"): string {
  const pascal = words(text).map(capitalize).join("");
  const name = pascal.charAt(0).toLowerCase() + pascal.slice(1);
  return safeIdentifier(name || fallback);
}

function safeIdentifier(name: string): string {
  const leading = /^[0-9]/.test(name) ? `_${name}` : name;
  return RESERVED_WORDS.has(leading) ? `${leading}_` : leading;
}

/**
 * Hands out unique names in one scope. The first request for a name gets it; later
 * ones get a numeric suffix (`DeleteRecord2`), so the result depends only on the
 * order of requests, which callers keep deterministic (tools sorted by name).
 */
export class NameScope {
  private readonly taken = new Set<string>();
  /** The next suffix to try per wanted name, so a thousand `Item`s do not probe a thousand times each. */
  private readonly next = new Map<string, number>();

  constructor(reserved: Iterable<string> = []) {
    for (const name of reserved) this.taken.add(name);
  }

  /**
   * Returns a free name based on `wanted`, and whether it had to be changed. With
   * `companions` (e.g. `["Schema"]`), `name + companion` is claimed too, so a type and
   * its parser always share a stem.
   */
  claim(wanted: string, companions: readonly string[] = []): { name: string; renamed: boolean } {
    for (let n = this.next.get(wanted) ?? 1; ; n++) {
      const name = n === 1 ? wanted : `${wanted}${n}`;
      const all = [name, ...companions.map((suffix) => `${name}${suffix}`)];
      if (all.every((candidate) => !this.taken.has(candidate))) {
        for (const candidate of all) this.taken.add(candidate);
        this.next.set(wanted, n + 1);
        return { name, renamed: n > 1 };
      }
    }
  }
}

/** The client class of a server: a function of its id alone, claimed first in its module. */
export function clientClassName(serverId: string): string {
  return `${pascalCase(serverId, "Server")}Client`;
}

/** `pmcp:outputTypeName` (annotations, then `_meta`), else the output schema's `title`. */
export function resultTypeName(tool: Tool, schema: unknown): string | undefined {
  for (const candidate of [
    tool.annotations?.["pmcp:outputTypeName"],
    tool._meta?.["pmcp:outputTypeName"],
    (schema as { title?: unknown } | undefined)?.title,
  ]) {
    if (typeof candidate === "string" && /[A-Za-z0-9]/.test(candidate)) return pascalCase(candidate);
  }
  return undefined;
}
