import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { DOC_PAGES } from "../helpers/readme.js";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The text of a page outside fenced code blocks, where a `#` line or a `](` is code, not Markdown. */
function prose(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split("\n")) {
    const open = /^ *(```+|~~~+)/.exec(line)?.[1];
    if (fence === undefined && open !== undefined) fence = open[0]!.repeat(open.length);
    else if (fence !== undefined && line.trim().startsWith(fence)) fence = undefined;
    else if (fence === undefined) lines.push(line);
  }
  return lines;
}

/** GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to `-`; a repeated one gets `-1`, `-2`. */
function slugs(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const found = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6} +(.+?) *#* *$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
      .replace(/ /g, "-");
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count === 0 ? base : `${base}-${count}`);
  }
  return found;
}

/** The relative links of a page: `[text](target)` outside code, the target as written. */
function linksOf(markdown: string): string[] {
  const targets: string[] = [];
  for (const line of prose(markdown)) {
    // Inline code may hold `](` (a JSON pointer, an example), so it goes first.
    const text = line.replace(/`[^`]*`/g, "code");
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (!/^[a-z][a-z0-9+.-]*:/i.test(target!)) targets.push(target!);
    }
  }
  return targets;
}

/** Every broken relative link of `page`, as `page: target (why)`. */
function brokenLinks(page: string): string[] {
  const broken: string[] = [];
  const text = readFileSync(join(ROOT, page), "utf8");
  for (const target of linksOf(text)) {
    const [path, anchor] = target.split("#", 2) as [string, string | undefined];
    const file = path === "" ? join(ROOT, page) : join(ROOT, dirname(page), decodeURI(path));
    if (!existsSync(file)) {
      broken.push(`${page}: ${target} (no file ${relative(ROOT, file)})`);
      continue;
    }
    if (anchor === undefined) continue;
    if (statSync(file).isDirectory() || !file.endsWith(".md")) {
      broken.push(`${page}: ${target} (an anchor into ${relative(ROOT, file)}, which is not a Markdown page)`);
    } else if (!slugs(readFileSync(file, "utf8")).has(anchor)) {
      broken.push(`${page}: ${target} (no heading #${anchor} in ${relative(ROOT, file)})`);
    }
  }
  return broken;
}

describe("the docs' links", () => {
  it("reads the front page, the runtime's README and every page of docs/", () => {
    expect(DOC_PAGES).toEqual(expect.arrayContaining(["README.md", "packages/runtime/README.md", "docs/README.md"]));
    expect(DOC_PAGES.length).toBeGreaterThan(20);
  });

  it("every relative link names a file that exists, and a heading of it for an anchor", () => {
    // All at once, so that one run lists every broken link.
    expect(DOC_PAGES.flatMap(brokenLinks)).toEqual([]);
  });

  it("makes GitHub's anchors: punctuation dropped, spaces to -, repeats numbered", () => {
    const page =
      "# `pmcp.config.json` / `pmcp.config.ts`\n## Flags\n```sh\n# not a heading\n```\n## Flags\n## `pmcp inspect` and `pmcp serve inspect`\n";
    expect([...slugs(page)]).toEqual(["pmcpconfigjson--pmcpconfigts", "flags", "flags-1", "pmcp-inspect-and-pmcp-serve-inspect"]);
  });

  it("takes relative links only, none inside inline code", () => {
    expect(linksOf("[a](docs/nowhere.md) `[b](x.md)` [c](https://example.com) [d](#here)")).toEqual(["docs/nowhere.md", "#here"]);
  });
});
