/**
 * What the model is asked to send differently from what the tool takes, recorded while the passes
 * run so that `restoreArguments` undoes it exactly there and nowhere else. A pass marks the node it
 * rewrites with a key of its own; `collectEncoding` removes the marks and records the nodes (by
 * identity) in the normalized schema. The keys end with a random suffix made when this module
 * loads: no schema a server sends can hold one, so no server decides what is restored.
 */

import { randomUUID } from "node:crypto";
import type { Schema } from "../json-schema/keywords.js";
import { mapSchemas } from "../json-schema/traverse.js";

/** The marks' random suffix, made when this module loads. */
const suffix = randomUUID();
/** A node whose value the model writes as JSON text. */
const JSON_TEXT = `x-pmcp-json-text-${suffix}`;
/** A node whose enum values became strings: the value maps back to the original's. */
const ENUM_STRINGS = `x-pmcp-enum-strings-${suffix}`;
/** An object whose optional properties became required and nullable: their names. */
const MADE_REQUIRED = `x-pmcp-made-required-${suffix}`;

const MARKS: ReadonlySet<string> = new Set([JSON_TEXT, ENUM_STRINGS, MADE_REQUIRED]);

/** The property a root that is not an object is wrapped in: MCP arguments and provider parameters are objects. */
export const WRAPPED_ROOT = "value";

/** What restoring must undo, in the normalized schema. */
export interface Encoding {
  /** Nodes whose values the model sends as JSON text. */
  jsonText: ReadonlySet<Schema>;
  /** Nodes whose enum values the model sends as strings. */
  enumStrings: ReadonlySet<Schema>;
  /** Objects whose listed properties the model sends as `null` when it means "not given". */
  madeRequired: ReadonlyMap<Schema, ReadonlySet<string>>;
  /** The property the original root was wrapped in, when it is not an object. */
  wrapped?: string;
}

/** Whether `keyword` is a mark, which a pass dropping unknown keywords must keep. */
export const isMark = (keyword: string): boolean => MARKS.has(keyword);

export const markJsonText = (node: Schema): Schema => ({ ...node, [JSON_TEXT]: true });
export const markEnumStrings = (node: Schema): Schema => ({ ...node, [ENUM_STRINGS]: true });
export const markMadeRequired = (node: Schema, names: readonly string[]): Schema => ({ ...node, [MADE_REQUIRED]: names });

export const isJsonText = (node: unknown): boolean => typeof node === "object" && node !== null && JSON_TEXT in node;
export const isEnumStrings = (node: unknown): boolean => typeof node === "object" && node !== null && ENUM_STRINGS in node;
/** Whether a schema (as JSON) holds a node marked as JSON text. */
export const holdsJsonText = (text: string): boolean => text.includes(JSON_TEXT);

/** The normalized schema without marks, and the nodes that carried each. */
export function collectEncoding(schema: Schema, wrapped: string | undefined): { schema: Schema; encoding: Encoding } {
  const jsonText = new Set<Schema>();
  const enumStrings = new Set<Schema>();
  const madeRequired = new Map<Schema, ReadonlySet<string>>();
  const out = mapSchemas(schema, (node) => {
    if (!Object.keys(node).some(isMark)) return node;
    const rest = Object.fromEntries(Object.entries(node).filter(([key]) => !isMark(key)));
    if (JSON_TEXT in node) jsonText.add(rest);
    if (ENUM_STRINGS in node) enumStrings.add(rest);
    if (Array.isArray(node[MADE_REQUIRED])) madeRequired.set(rest, new Set(node[MADE_REQUIRED] as string[]));
    return rest;
  });
  return { schema: out, encoding: { jsonText, enumStrings, madeRequired, ...(wrapped === undefined ? {} : { wrapped }) } };
}
