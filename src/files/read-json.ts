/**
 * The runtime's one JSON-file reader (and its one issue formatter), with its failures turned
 * into the errors of whoever reads: a PmcpError with the caller's code by default.
 */

import {
  parseJsonValue as checkWithRuntime,
  JsonFileError,
  type JsonFileOptions,
  parseJsonText as parseWithRuntime,
  readJsonFile as readWithRuntime,
} from "@pmcp-codegen/runtime/internal";
import type { z } from "zod";
import { PmcpError, type PmcpErrorCode } from "../errors.js";

/** The runtime reader's options, and the error a failure becomes. */
export interface ReadOptions extends JsonFileOptions {
  /** The code of a malformed or invalid file (default INVALID_INPUT); a missing one is NOT_FOUND unless this is INVALID_ARGUMENT. */
  code?: PmcpErrorCode;
  /** The error to throw instead of a PmcpError, for entries with errors of their own. */
  fail?: (message: string, cause: JsonFileError) => Error;
}

export async function readJsonFile<S extends z.ZodType>(path: string, schema: S, options: ReadOptions = {}): Promise<z.output<S>> {
  try {
    return await readWithRuntime(path, schema, options);
  } catch (error) {
    throw translated(error, options);
  }
}

/** Text already read; `path` names it in messages. */
export function parseJsonText<S extends z.ZodType>(text: string, path: string, schema: S, options: ReadOptions = {}): z.output<S> {
  try {
    return parseWithRuntime(text, path, schema, options);
  } catch (error) {
    throw translated(error, options);
  }
}

/** A value already parsed, checked against `schema`. */
export function parseJsonValue<S extends z.ZodType>(json: unknown, path: string, schema: S, options: ReadOptions = {}): z.output<S> {
  try {
    return checkWithRuntime(json, path, schema, options);
  } catch (error) {
    throw translated(error, options);
  }
}

function translated(error: unknown, options: ReadOptions): unknown {
  if (!(error instanceof JsonFileError)) return error;
  if (options.fail !== undefined) return options.fail(error.message, error);
  const missing = error.code === "FILE_NOT_FOUND" && options.code !== "INVALID_ARGUMENT";
  return new PmcpError(missing ? "NOT_FOUND" : (options.code ?? "INVALID_INPUT"), error.message, { cause: error });
}
