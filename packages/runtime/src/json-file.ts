import { readFile } from "node:fs/promises";
import type { z } from "zod";
import { BrandedError } from "./branded-error.js";
import { type FormatIssuesOptions, formatIssues } from "./issues.js";

/** Why a JSON file could not be used; stable, for switches. */
export type JsonFileErrorCode = "FILE_NOT_FOUND" | "FILE_UNREADABLE" | "NOT_JSON" | "INVALID";

/** A JSON file that is missing, unreadable, not JSON, or not what the schema expects; the message names the file. */
export class JsonFileError extends BrandedError {
  override readonly name = "JsonFileError";

  constructor(
    readonly code: JsonFileErrorCode,
    /** The file as it was named to the reader. */
    readonly file: string,
    message: string,
    /** The schema's complaints, for `INVALID`; empty otherwise. */
    readonly issues: readonly z.core.$ZodIssue[] = [],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export interface JsonFileOptions extends FormatIssuesOptions {
  /** What the file is, for messages: `config file` gives "cannot read config file x.json: ENOENT". */
  what?: string;
}

/** Reads, parses and validates a JSON file; every failure is a JsonFileError naming the file (and the JSON path). */
export async function readJsonFile<S extends z.ZodType>(path: string, schema: S, options: JsonFileOptions = {}): Promise<z.output<S>> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === "ENOENT" ? "ENOENT (no such file)" : (code ?? String(error));
    throw new JsonFileError(
      code === "ENOENT" ? "FILE_NOT_FOUND" : "FILE_UNREADABLE",
      path,
      `cannot read ${label(path, options)}: ${reason}`,
      [],
      { cause: error },
    );
  }
  return parseJsonText(text, path, schema, options);
}

/** The same for text already read; `path` is only used in messages. */
export function parseJsonText<S extends z.ZodType>(text: string, path: string, schema: S, options: JsonFileOptions = {}): z.output<S> {
  let json: unknown;
  try {
    // Editors on Windows save UTF-8 with a byte order mark; JSON.parse takes it for a stray character.
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new JsonFileError("NOT_JSON", path, `${label(path, options)} is not valid JSON: ${(error as Error).message}`, [], {
      cause: error,
    });
  }
  return parseJsonValue(json, path, schema, options);
}

/** The same for a value already parsed (a file read in two steps, or not from JSON text at all). */
export function parseJsonValue<S extends z.ZodType>(json: unknown, path: string, schema: S, options: JsonFileOptions = {}): z.output<S> {
  const parsed = schema.safeParse(json);
  if (!parsed.success)
    throw new JsonFileError("INVALID", path, formatIssues(label(path, options), parsed.error.issues, options), parsed.error.issues);
  return parsed.data;
}

function label(path: string, options: JsonFileOptions): string {
  return options.what === undefined ? path : `${options.what} ${path}`;
}
