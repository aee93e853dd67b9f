import { readFile } from "node:fs/promises";
import type { z } from "zod";
import { PmcpError, type PmcpErrorCode } from "./errors.js";

export interface JsonFileOptions {
  /** How messages name the file, e.g. `--samples samples.json` (default: its path). */
  what?: string;
  /** The code of an unreadable, malformed or invalid file (default INVALID_INPUT); a missing one is NOT_FOUND unless INVALID_ARGUMENT. */
  code?: PmcpErrorCode;
  /** What a valid file looks like, added to a message about its shape. */
  hint?: string;
  /** The error to throw instead of a PmcpError (for entries with errors of their own). */
  fail?: (message: string) => Error;
  /** Describes where an issue's path points better than the dotted path does (a server and tool, say). */
  locate?: (path: readonly PropertyKey[]) => string;
}

/**
 * Every JSON file pmcp reads comes through here: read, parse, check against a zod schema,
 * and one message per problem naming the file and where in it.
 */
export async function readJsonFile<S extends z.ZodType>(path: string, schema: S, options: JsonFileOptions = {}): Promise<z.output<S>> {
  return parseJsonText(await readText(path, options), schema, { ...options, what: options.what ?? path });
}

/** The same for text already read; `options.what` names it in messages. */
export function parseJsonText<S extends z.ZodType>(text: string, schema: S, options: JsonFileOptions & { what: string }): z.output<S> {
  const parsed = schema.safeParse(parseJson(text, options));
  if (parsed.success) return parsed.data;
  throw failure(options, formatIssues(parsed.error.issues, options));
}

/** JSON text parsed, or one line naming the file and what is wrong with it. */
export function parseJson(text: string, options: Pick<JsonFileOptions, "code" | "fail"> & { what: string }): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw failure(options, `${options.what}: not valid JSON: ${(error as Error).message}`);
  }
}

function failure(options: Pick<JsonFileOptions, "code" | "fail">, message: string): Error {
  return options.fail?.(message) ?? new PmcpError(options.code ?? "INVALID_INPUT", message);
}

/**
 * Up to three issues, one line each: `<what>: <where>: <message>`, and how many more there
 * were. `where` is the issue's path dotted, or what `locate` makes of it.
 */
export function formatIssues(issues: readonly z.core.$ZodIssue[], options: Pick<JsonFileOptions, "hint" | "locate"> & { what: string }): string {
  const where = options.locate ?? ((path: readonly PropertyKey[]) => path.map(String).join("."));
  const lines = issues.slice(0, 3).map((issue) => {
    const at = where(issue.path);
    return `${options.what}: ${at === "" ? "" : `${at}: `}${issue.message}${options.hint ? ` (${options.hint})` : ""}`;
  });
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : "";
  return lines.join("\n") + more;
}

async function readText(path: string, options: JsonFileOptions): Promise<string> {
  const what = options.what ?? path;
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code;
    const code = options.code === "INVALID_ARGUMENT" ? options.code : "NOT_FOUND";
    throw new PmcpError(code, reason === "ENOENT" ? `${what}: no such file` : `${what}: cannot read (${reason ?? String(error)})`);
  }
}
