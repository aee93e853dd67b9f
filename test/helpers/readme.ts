import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The pages a reader of the project reads, relative to the checkout: both READMEs and every page of docs/, sorted. */
export const DOC_PAGES: readonly string[] = [
  "README.md",
  "packages/runtime/README.md",
  ...readdirSync(`${ROOT}docs`, { recursive: true, encoding: "utf8" })
    .filter((file) => file.endsWith(".md"))
    .map((file) => `docs/${file.split("\\").join("/")}`)
    .sort(),
];

/** A fenced code block of a Markdown file: its info string (`ts`, `ts fragment`), its text, and its fence's line (from 1). */
export interface CodeBlock {
  info: string;
  code: string;
  line: number;
}

/** The fenced code blocks of `markdown`, those indented in list items too (their indentation removed). */
export function codeBlocks(markdown: string): CodeBlock[] {
  const lines = markdown.split("\n");
  const blocks: CodeBlock[] = [];
  for (let at = 0; at < lines.length; at++) {
    const open = /^( *)```(.*)$/.exec(lines[at]!);
    if (open === null) continue;
    const indent = open[1]!.length;
    const body: string[] = [];
    let end = at + 1;
    for (; end < lines.length && !/^ *```\s*$/.test(lines[end]!); end++) {
      const text = lines[end]!;
      body.push(text.slice(Math.min(indent, text.length - text.trimStart().length)));
    }
    blocks.push({ info: open[2]!.trim(), code: `${body.join("\n")}\n`, line: at + 1 });
    at = end;
  }
  return blocks;
}

/** The part of `markdown` from the heading `heading` (a whole line) to the next heading of its level or above. */
export function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`no heading "${heading}"`);
  const level = /^#+/.exec(heading)![0].length;
  const rest = markdown.slice(start + heading.length + 2);
  const next = new RegExp(`\\n#{1,${level}} `).exec(rest);
  return rest.slice(0, next === null ? undefined : next.index);
}
