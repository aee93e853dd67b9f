import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "shell-quote";
import { describe, expect, it } from "vitest";
import { COMMANDS, type CommandEntry, isGroup } from "../../src/cli/commands.js";
import { program } from "../../src/cli/program.js";
import { codeBlocks, DOC_PAGES } from "../helpers/readme.js";

/**
 * The shell blocks of the docs, as a reader copies them: every `pmcp` command line in them parses as
 * pmcp parses it (the real commands and their checks, with handlers that do nothing), and every JSON
 * block is JSON. A flag renamed or a value a check refuses fails here, naming the page and line.
 */

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const BLOCKS = DOC_PAGES.flatMap((page) => codeBlocks(readFileSync(join(ROOT, page), "utf8")).map((block) => ({ page, ...block })));

/** The words of each `pmcp` command in a shell block, after `pmcp` (or `npx pmcp`), up to the first operator or comment. */
function pmcpCommands(script: string): string[][] {
  const commands: string[][] = [];
  for (const line of script.replaceAll("\\\n", " ").split("\n")) {
    // Variables stay as written: `$REPO` names a folder the reader has, not one the test knows.
    const tokens = parse(line, (name) => `$${name}`);
    for (let at = 0; at < tokens.length; at++) {
      if (tokens[at] !== "pmcp") continue;
      const words: string[] = [];
      for (const token of tokens.slice(at + 1)) {
        if (typeof token !== "string") break;
        words.push(token);
      }
      commands.push(words);
    }
  }
  return commands;
}

/** The commands of pmcp with handlers that do nothing: parsing runs every builder and check, and nothing else. */
function parsedOnly(entries: readonly CommandEntry[]): CommandEntry[] {
  const quiet = async () => {};
  return entries.map((entry) =>
    isGroup(entry)
      ? { ...entry, commands: entry.commands.map((command) => ({ ...command, handler: quiet })) }
      : { ...entry, handler: quiet },
  );
}

const COMMANDS_PARSED_ONLY = parsedOnly(COMMANDS);

/** What pmcp says of `words`: "" when it parses them. */
async function refusal(words: readonly string[]): Promise<string> {
  try {
    await program(words, COMMANDS_PARSED_ONLY).parseAsync();
    return "";
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

describe("the docs' shell blocks", () => {
  const lines = BLOCKS.filter((block) => block.info === "sh").flatMap((block) =>
    pmcpCommands(block.code).map((words) => ({ at: `${block.page}:${block.line}`, words })),
  );

  it("have pmcp command lines on most command pages", () => {
    expect(lines.length).toBeGreaterThan(30);
  });

  it("every pmcp command line parses as pmcp parses it", async () => {
    const refused: string[] = [];
    for (const { at, words } of lines) {
      const problem = await refusal(words);
      if (problem !== "") refused.push(`${at}: pmcp ${words.join(" ")}: ${problem}`);
    }
    expect(refused).toEqual([]);
  });

  it("a flag pmcp does not know, or a value its check refuses, is refused", async () => {
    expect(pmcpCommands('x && npx pmcp schema export --stdio "node a.js" --id inventory   # a comment\n')).toEqual([
      ["schema", "export", "--stdio", "node a.js", "--id", "inventory"],
    ]);
    expect(await refusal(["generate", "--no-such-flag"])).toMatch(/no-such-flag/);
    expect(await refusal(["schema", "export", "--timeout", "-1"])).toMatch(/^--timeout /);
    expect(await refusal(["generate", "--check"])).toBe("");
  });
});

describe("the docs' JSON blocks", () => {
  it("are JSON", () => {
    const json = BLOCKS.filter((block) => block.info === "json");
    expect(json.length).toBeGreaterThan(2);
    const unreadable = json.flatMap(({ page, line, code }) => {
      try {
        JSON.parse(code);
        return [];
      } catch (error) {
        return [`${page}:${line}: ${(error as Error).message}`];
      }
    });
    expect(unreadable).toEqual([]);
  });
});
