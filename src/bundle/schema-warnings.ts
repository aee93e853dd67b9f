import type { BundleServer, Tool } from "./types.js";
import { DATA_KEYWORDS, escapePointer, findAnchor, isObject, resolvePointer } from "../json-schema/pointer.js";

/** A problem in a recorded schema: reported, never fatal, never repaired. */
export interface SchemaWarning {
  server: string;
  tool: string;
  /** JSON pointer into the tool object, e.g. `/outputSchema/properties/a`. */
  pointer: string;
  message: string;
}

const KNOWN_DIALECTS = new Set([
  "http://json-schema.org/draft-04/schema",
  "http://json-schema.org/draft-06/schema",
  "http://json-schema.org/draft-07/schema",
  "https://json-schema.org/draft/2019-09/schema",
  "https://json-schema.org/draft/2020-12/schema",
]);


/** Keywords whose values map arbitrary names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions", "dependentSchemas"]);

/** Where a tool may carry a schema: the standard places and PMCP's legacy annotation. */
function schemaLocations(tool: Tool): [string, unknown][] {
  const locations: [string, unknown][] = [
    ["/inputSchema", tool.inputSchema],
    ["/outputSchema", tool.outputSchema],
    ["/annotations/pmcp:outputSchema", tool.annotations?.["pmcp:outputSchema"]],
    ["/_meta/pmcp:outputSchema", tool._meta?.["pmcp:outputSchema"]],
  ];
  return locations.filter(([, schema]) => schema !== undefined);
}

/** Every dangling or remote `$ref` and unknown `$schema` dialect in a server's tools. */
export function findSchemaWarnings(server: BundleServer): SchemaWarning[] {
  const warnings: SchemaWarning[] = [];
  for (const tool of server.tools) {
    for (const [pointer, schema] of schemaLocations(tool)) {
      const report = (at: string, message: string) => warnings.push({ server: server.id, tool: tool.name, pointer: at, message });
      checkDialect(schema, pointer, report);
      walk(schema, schema, pointer, report);
    }
  }
  return warnings;
}

function checkDialect(schema: unknown, pointer: string, report: (at: string, message: string) => void): void {
  if (!isObject(schema) || schema.$schema === undefined) return;
  const dialect = typeof schema.$schema === "string" ? schema.$schema.replace(/#$/, "") : undefined;
  if (dialect === undefined || !KNOWN_DIALECTS.has(dialect)) {
    report(`${pointer}/$schema`, `unknown JSON Schema dialect ${JSON.stringify(schema.$schema)}`);
  }
}

function walk(node: unknown, resource: unknown, pointer: string, report: (at: string, message: string) => void): void {
  if (Array.isArray(node)) {
    node.forEach((item, index) => walk(item, resource, `${pointer}/${index}`, report));
    return;
  }
  if (!isObject(node)) return;
  // A nested `$id` starts a new schema resource: its `#/...` refs resolve against it.
  const base = node !== resource && typeof node.$id === "string" && !node.$id.startsWith("#") ? node : resource;
  if (typeof node.$ref === "string") checkRef(node.$ref, base, `${pointer}/$ref`, report);
  for (const [key, value] of Object.entries(node)) {
    const at = `${pointer}/${escapePointer(key)}`;
    if (DATA_KEYWORDS.has(key)) continue;
    if (SCHEMA_MAPS.has(key) && isObject(value)) {
      // Names in these maps are user data: a property called "enum" is still a schema.
      for (const [name, schema] of Object.entries(value)) walk(schema, base, `${at}/${escapePointer(name)}`, report);
    } else {
      walk(value, base, at, report);
    }
  }
}

function checkRef(ref: string, resource: unknown, at: string, report: (at: string, message: string) => void): void {
  if (!ref.startsWith("#")) {
    report(at, `$ref ${JSON.stringify(ref)} points outside the schema and is not fetched`);
    return;
  }
  let fragment: string;
  try {
    fragment = decodeURIComponent(ref.slice(1));
  } catch {
    report(at, `malformed $ref ${JSON.stringify(ref)}`);
    return;
  }
  const found = fragment === "" || fragment.startsWith("/") ? resolvePointer(resource, fragment) : findAnchor(resource, fragment);
  if (found === undefined) report(at, `dangling $ref ${JSON.stringify(ref)}`);
}

export function formatWarning(warning: SchemaWarning): string {
  return `server "${warning.server}" tool "${warning.tool}" at ${warning.pointer}: ${warning.message}`;
}
