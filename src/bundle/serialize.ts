import { BUNDLE_VERSION } from "./defaults.js";
import type { Bundle, BundleServer } from "./types.js";

/**
 * The canonical bundle: servers by id, tools by name (code-unit order, not locale), and
 * every tool object's own keys in the order the server sent them. No timestamps, so an
 * unchanged server exports to the same bytes.
 */
export function canonicalBundle(servers: readonly BundleServer[]): Bundle {
  return {
    version: BUNDLE_VERSION,
    servers: [...servers].sort((a, b) => compare(a.id, b.id)).map(canonicalServer),
  };
}

function canonicalServer(server: BundleServer): BundleServer {
  const { id, serverInfo, protocolVersion, instructions, endpoint, tools, inferred, ...rest } = server;
  return {
    id,
    ...(serverInfo === undefined ? {} : { serverInfo }),
    ...(protocolVersion === undefined ? {} : { protocolVersion }),
    ...(instructions === undefined ? {} : { instructions }),
    ...(endpoint === undefined ? {} : { endpoint }),
    ...rest,
    tools: [...tools].sort((a, b) => compare(a.name, b.name)),
    ...(inferred === undefined || inferred.length === 0 ? {} : { inferred: [...inferred].sort((a, b) => compare(a.tool, b.tool)) }),
  };
}

export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Two-space JSON with a trailing newline: the on-disk form of every file we write. */
export function toJsonText(value: unknown): string {
  return `${jsonText(value, 2)}\n`;
}

/** Past this many levels, JSON is written on one line: indentation would grow with the square of the depth. */
const MAX_INDENTED_LEVEL = 100;

/**
 * `JSON.stringify(value, null, indent)` for JSON data, also past the few thousand levels where its
 * recursion fails (schemas in the wild nest deeper), and on one line past 100 levels. It is tried
 * first: it serves every digest, and it is several times faster than the explicit stack.
 */
export function jsonText(value: unknown, indent: 0 | 2 = 0): string {
  let text: string;
  try {
    text = JSON.stringify(value, null, indent) ?? "null";
  } catch (error) {
    if (error instanceof RangeError) return stackedJsonText(value, indent);
    throw error;
  }
  // Lines inside strings are escaped, so a line indented this far holds a member past the limit.
  return indent > 0 && text.includes(`\n${" ".repeat(indent * MAX_INDENTED_LEVEL + 1)}`) ? stackedJsonText(value, indent) : text;
}

/** jsonText with an explicit stack instead of recursion. */
function stackedJsonText(value: unknown, indent: number): string {
  const out: string[] = [];
  const stack: ({ text: string } | { value: unknown; level: number })[] = [{ value, level: 0 }];
  while (stack.length > 0) {
    const next = stack.pop()!;
    if ("text" in next) {
      out.push(next.text);
      continue;
    }
    const { value: item, level } = next;
    if (item === null || typeof item !== "object") {
      out.push(JSON.stringify(item) ?? "null");
      continue;
    }
    const entries: [string | undefined, unknown][] = Array.isArray(item)
      ? item.map((member) => [undefined, member])
      : Object.entries(item).filter(([, member]) => member !== undefined && typeof member !== "function" && typeof member !== "symbol");
    const [open, close] = Array.isArray(item) ? ["[", "]"] : ["{", "}"];
    if (entries.length === 0) {
      out.push(`${open}${close}`);
      continue;
    }
    const indented = indent > 0 && level < MAX_INDENTED_LEVEL;
    const inner = indented ? `\n${" ".repeat(indent * (level + 1))}` : "";
    const colon = indent > 0 ? ": " : ":";
    out.push(open);
    stack.push({ text: `${indented ? `\n${" ".repeat(indent * level)}` : ""}${close}` });
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, member] = entries[index]!;
      stack.push({ value: member, level: level + 1 });
      stack.push({ text: `${index === 0 ? "" : ","}${inner}${key === undefined ? "" : `${JSON.stringify(key)}${colon}`}` });
    }
  }
  return out.join("");
}
