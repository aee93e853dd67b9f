import { RE2JS } from "re2js";
import { BrandedError } from "./branded-error.js";

/**
 * The `pattern`s of schemas, matched in time linear in the text. They come from servers, and
 * JavaScript's RegExp backtracks: `^(a+)+$` against 31 characters blocks its thread for over a
 * minute. Each pattern, an ECMAScript regular expression as JSON Schema says, is translated to the
 * syntax of RE2 (re2js, a port of it) where the two differ, so that it matches what RegExp would
 * match: `.` and `\s` as ECMAScript defines them, `\u` escapes, `[^]`, named groups. What linear
 * matching cannot do at all (lookaround, backreferences, a repeat count over 1,000) throws an
 * UnsupportedPatternError; the generator leaves such a pattern unchecked, with a warning.
 */

/** What a schema's pattern is checked with: RegExp's `test`, in linear time. */
export interface Pattern {
  readonly source: string;
  /** Whether the pattern matches anywhere in `text`, as a JSON Schema `pattern` is applied. */
  test(text: string): boolean;
  toString(): string;
}

/** A pattern that is not an ECMAScript regular expression, or one that linear matching cannot take. */
export class UnsupportedPatternError extends BrandedError {
  readonly code = "UNSUPPORTED_PATTERN";
  override readonly name = "UnsupportedPatternError";

  constructor(
    readonly source: string,
    /** What in it cannot be matched: "a lookaround", "a backreference", or the parser's words. */
    readonly reason: string,
    /** Whether it is not an ECMAScript regular expression at all (RegExp refuses it too). */
    readonly invalid = false,
  ) {
    super(
      `${JSON.stringify(source)} ${invalid ? "is not an ECMAScript regular expression" : "cannot be matched in linear time"}: ${reason}`,
    );
  }
}

/** Compiled patterns by source and flag: a schema's pattern is compiled once however many values it checks. */
const compiled = new Map<string, Pattern>();
/** Enough for every pattern of a large bundle; past it the cache starts again rather than grow. */
const MAX_COMPILED = 10_000;

/**
 * The pattern `source` as JSON Schema reads it: an ECMAScript regular expression with the `u` flag
 * (`unicode: false` for one valid only without it). Throws UnsupportedPatternError.
 */
export function pattern(source: string, unicode = true): Pattern {
  const key = `${unicode ? "u" : "-"}${source}`;
  let found = compiled.get(key);
  if (found === undefined) {
    const problem = regExpSyntaxProblem(source, unicode);
    if (problem !== undefined) throw new UnsupportedPatternError(source, problem, true);
    const translated = toRe2(source, unicode);
    let engine: RE2JS;
    try {
      engine = RE2JS.compile(translated);
    } catch (error) {
      throw new UnsupportedPatternError(source, error instanceof Error ? error.message : String(error));
    }
    found = { source, test: (text) => engine.test(text), toString: () => `/${source}/${unicode ? "u" : ""}` };
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, found);
  }
  return found;
}

/** `(text) => pattern(source).test(text)`: a string parser's check for its schema's pattern. */
export function matches(source: string): (text: string) => boolean {
  const compiledPattern = pattern(source);
  return (text) => compiledPattern.test(text);
}

/**
 * Why `source` is not an ECMAScript regular expression (with the `u` flag, or without it), or
 * undefined when it is one. RegExp is the judge of the syntax: constructing one runs nothing.
 */
export function regExpSyntaxProblem(source: string, unicode = true): string | undefined {
  try {
    new RegExp(source, unicode ? "u" : "");
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** ECMAScript's WhiteSpace and LineTerminator, which its `\s` matches (RE2's is ASCII only). */
const SPACE = "\\t\\n\\x{b}\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}\\x{feff}";
/** Everything else: ECMAScript's `\S`. */
const NOT_SPACE =
  "\\x{0}-\\x{8}\\x{e}-\\x{1f}\\x{21}-\\x{9f}\\x{a1}-\\x{167f}\\x{1681}-\\x{1fff}\\x{200b}-\\x{2027}\\x{202a}-\\x{202e}\\x{2030}-\\x{205e}\\x{2060}-\\x{2fff}\\x{3001}-\\x{fefe}\\x{ff00}-\\x{10ffff}";
/** What ECMAScript's `.` matches without the `s` flag: all but its line terminators. */
const DOT = "[^\\n\\r\\x{2028}\\x{2029}]";

const codePoint = (value: number) => `\\x{${value.toString(16)}}`;
const unsupported = (source: string, what: string) => new UnsupportedPatternError(source, what);

/** One translated unit of a pattern: RE2 text, and for a class escape the ranges it stands for inside a class. */
interface Unit {
  re2: string;
  /** Inside a class: the ranges without brackets; undefined for a single character. */
  ranges?: string;
  /** The code point, for a single character (the end of a range). */
  code?: number;
}

/**
 * The RE2 spelling of an ECMAScript pattern. A reader of the source, escape by escape: RegExp has
 * checked its syntax already (in unicode mode), so only what differs is looked at closely.
 */
function toRe2(source: string, unicode: boolean): string {
  let at = 0;
  let out = "";
  const peek = (offset = 0) => source[at + offset];

  /** The code point at `at`, consuming it: RE2 matches code points, so a surrogate pair is one, with or without the u flag. */
  const nextChar = (): number => {
    const code = source.codePointAt(at) as number;
    at += code > 0xffff ? 2 : 1;
    return code;
  };

  /** `\uXXXX`, `\u{…}` (unicode), and a pair of `\u` surrogates as one code point. */
  const unicodeEscape = (): number | undefined => {
    if (unicode && peek() === "{") {
      const end = source.indexOf("}", at);
      const value = Number.parseInt(source.slice(at + 1, end), 16);
      at = end + 1;
      return value;
    }
    const hex = source.slice(at, at + 4);
    if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined;
    at += 4;
    const high = Number.parseInt(hex, 16);
    const low = source.slice(at, at + 6);
    if (unicode && high >= 0xd800 && high <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}$/.test(low)) {
      at += 6;
      return (high - 0xd800) * 0x400 + (Number.parseInt(low.slice(2), 16) - 0xdc00) + 0x10000;
    }
    return high;
  };

  /** The escape after a backslash; `inClass` changes `\b` and what a class escape becomes. */
  const escaped = (inClass: boolean): Unit => {
    const char = peek();
    if (char === undefined) throw unsupported(source, "it ends in a backslash");
    at++;
    switch (char) {
      case "d":
      case "D":
      case "w":
      case "W":
        return { re2: `\\${char}`, ranges: `\\${char}` };
      case "s":
        return { re2: `[${SPACE}]`, ranges: SPACE };
      case "S":
        return { re2: `[${NOT_SPACE}]`, ranges: NOT_SPACE };
      case "b":
      case "B":
        return inClass ? { re2: codePoint(8), code: 8 } : { re2: `\\${char}` };
      case "n":
        return { re2: "\\n", code: 10 };
      case "r":
        return { re2: "\\r", code: 13 };
      case "t":
        return { re2: "\\t", code: 9 };
      case "f":
        return { re2: "\\f", code: 12 };
      case "v":
        return { re2: codePoint(11), code: 11 };
      case "0":
        if (!/[0-9]/.test(peek() ?? "")) return { re2: codePoint(0), code: 0 };
        throw unsupported(source, "an octal escape");
      case "c": {
        const letter = peek();
        if (letter !== undefined && /[A-Za-z]/.test(letter)) {
          at++;
          const code = letter.charCodeAt(0) % 32;
          return { re2: codePoint(code), code };
        }
        // Without the u flag, a backslash and the `c` after it.
        at--;
        return literal(92);
      }
      case "x": {
        const hex = source.slice(at, at + 2);
        if (/^[0-9a-fA-F]{2}$/.test(hex)) {
          at += 2;
          const code = Number.parseInt(hex, 16);
          return { re2: codePoint(code), code };
        }
        return literal(120);
      }
      case "u": {
        const code = unicodeEscape();
        if (code === undefined) return literal(117);
        if (code >= 0xd800 && code <= 0xdfff) throw unsupported(source, "a lone surrogate");
        return { re2: codePoint(code), code };
      }
      case "p":
      case "P":
        if (unicode && peek() === "{") {
          const end = source.indexOf("}", at);
          const name = source.slice(at + 1, end);
          at = end + 1;
          // RE2 knows the short general categories and the script names, written bare.
          const value = name.replace(/^(?:General_Category|gc|Script|sc)=/, "");
          return { re2: `\\${char}{${value}}`, ranges: `\\${char}{${value}}` };
        }
        return literal(char.charCodeAt(0));
      case "k":
        if (unicode || source.includes("(?<")) throw unsupported(source, "a backreference");
        return literal(107);
    }
    // A backreference, or without the u flag in a class an octal escape: neither is taken.
    if (/[1-9]/.test(char)) throw unsupported(source, "a backreference");
    // An identity escape: the character itself.
    at--;
    return literal(nextChar());
  };

  /** A literal character, escaped where RE2 would read it as syntax. */
  const literal = (code: number): Unit => {
    const char = String.fromCodePoint(code);
    if (/[\\^$.|?*+()[\]{}\-/]/.test(char)) return { re2: `\\${char}`, code };
    if (code >= 0xd800 && code <= 0xdfff) throw unsupported(source, "a lone surrogate");
    if (code < 0x20 || code === 0x7f) return { re2: codePoint(code), code };
    return { re2: char, code };
  };

  /** A class: `[…]`, with ECMAScript's `[]` (nothing) and `[^]` (anything). */
  const characterClass = (): string => {
    at++;
    let negated = false;
    if (peek() === "^") {
      negated = true;
      at++;
    }
    const items: string[] = [];
    while (peek() !== "]") {
      if (peek() === undefined) throw unsupported(source, "a class without its end");
      const start = classAtom();
      // A range, unless an end is a class escape (then, without the u flag, the hyphen is a character).
      if (peek() === "-" && peek(1) !== "]" && peek(1) !== undefined && start.ranges === undefined) {
        const before = at;
        at++;
        const end = classAtom();
        if (end.ranges === undefined) {
          items.push(`${start.re2}-${end.re2}`);
          continue;
        }
        at = before;
      }
      items.push(start.ranges ?? start.re2);
    }
    at++;
    if (items.length === 0) return negated ? "[\\x{0}-\\x{10ffff}]" : "[^\\x{0}-\\x{10ffff}]";
    return `[${negated ? "^" : ""}${items.join("")}]`;
  };

  const classAtom = (): Unit => {
    if (peek() === "\\") {
      at++;
      return escaped(true);
    }
    return literal(nextChar());
  };

  while (at < source.length) {
    const char = peek() as string;
    if (char === "\\") {
      at++;
      out += escaped(false).re2;
    } else if (char === "[") {
      out += characterClass();
    } else if (char === ".") {
      at++;
      out += DOT;
    } else if (char === "(") {
      at++;
      if (peek() === "?") {
        const kind = source.slice(at, at + 3);
        if (kind.startsWith("?=") || kind.startsWith("?!") || kind === "?<=" || kind === "?<!") throw unsupported(source, "a lookaround");
        if (kind.startsWith("?<")) {
          at += 2;
          out += "(?P<";
          continue;
        }
      }
      out += "(";
    } else if (char === "{") {
      const quantifier = /^\{\d+(?:,\d*)?\}/.exec(source.slice(at));
      if (quantifier !== null) {
        out += quantifier[0];
        at += quantifier[0].length;
      } else {
        at++;
        out += "\\{";
      }
    } else if (char === "}" || char === "]") {
      at++;
      out += `\\${char}`;
    } else if ("^$|?*+)".includes(char)) {
      at++;
      out += char;
    } else {
      out += literal(nextChar()).re2;
    }
  }
  return out;
}
