import { pascalCase, words } from "../../ir/naming.js";

/** Rust's strict and reserved keywords (edition 2021): none may name a field or a type as written. */
const KEYWORDS = new Set([
  "as",
  "async",
  "await",
  "break",
  "const",
  "continue",
  "crate",
  "dyn",
  "else",
  "enum",
  "extern",
  "false",
  "fn",
  "for",
  "if",
  "impl",
  "in",
  "let",
  "loop",
  "match",
  "mod",
  "move",
  "mut",
  "pub",
  "ref",
  "return",
  "self",
  "Self",
  "static",
  "struct",
  "super",
  "trait",
  "true",
  "type",
  "unsafe",
  "use",
  "where",
  "while",
  "abstract",
  "become",
  "box",
  "do",
  "final",
  "macro",
  "override",
  "priv",
  "typeof",
  "unsized",
  "virtual",
  "yield",
  "try",
  "gen",
]);

/** Keywords a raw identifier (`r#type`) cannot carry: they take a `_` suffix instead. */
const NOT_RAW = new Set(["self", "Self", "super", "crate", "_"]);

/**
 * A field or method name: snake_case of the name's ASCII words (`rowCount` → `row_count`), a
 * leading digit behind `_`, a keyword as a raw identifier (`r#type`) or with a `_` suffix where Rust
 * allows no raw form. The wire name is kept apart, in `#[serde(rename)]`.
 */
export function rustFieldName(name: string, fallback = "field"): string {
  const snake =
    words(name)
      .map((word) => word.toLowerCase())
      .join("_") || fallback;
  return keywordSafe(/^[0-9]/.test(snake) ? `_${snake}` : snake);
}

/** A type name: the TypeScript output's PascalCase rules, with `Self` made safe. */
export function rustTypeName(name: string, fallback = "Unnamed"): string {
  return keywordSafe(pascalCase(name, fallback));
}

function keywordSafe(name: string): string {
  if (!KEYWORDS.has(name) && name !== "_") return name;
  return NOT_RAW.has(name) ? `${name}_` : `r#${name}`;
}

/**
 * A server's module, named by its file `<name>.rs`: snake_case, a keyword with a `_` suffix (a raw
 * `r#mod` would still look for `mod.rs`). Uniqueness is the caller's (see planRustModules).
 */
export function rustModuleName(serverId: string): string {
  const snake = rustFieldName(serverId, "server").replace(/^r#/, "");
  return KEYWORDS.has(snake) && !snake.endsWith("_") ? `${snake}_` : snake;
}
