import { isKnownDialect } from "../json-schema/dialect.js";
import { isObject } from "../json-schema/pointer.js";
import { resolveRef } from "../json-schema/refs.js";
import { walkSchemas } from "../json-schema/traverse.js";
import type { BundleServer, Tool } from "./types.js";

/** A problem in a recorded schema: reported, never fatal, never repaired. */
export interface SchemaWarning {
  server: string;
  tool: string;
  /** JSON pointer into the tool object, e.g. `/outputSchema/properties/a`. */
  pointer: string;
  message: string;
}

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
      for (const { node, pointer: at, resource } of walkSchemas(schema)) {
        if (typeof node.$ref === "string") checkRef(node.$ref, resource, `${pointer}${at}/$ref`, report);
      }
    }
  }
  return warnings;
}

function checkDialect(schema: unknown, pointer: string, report: (at: string, message: string) => void): void {
  if (!isObject(schema) || schema.$schema === undefined) return;
  if (typeof schema.$schema !== "string" || !isKnownDialect(schema.$schema)) {
    report(`${pointer}/$schema`, `unknown JSON Schema dialect ${JSON.stringify(schema.$schema)}`);
  }
}

function checkRef(ref: string, resource: unknown, at: string, report: (at: string, message: string) => void): void {
  const target = resolveRef(resource, ref);
  if (target.kind === "remote") report(at, `$ref ${JSON.stringify(ref)} points outside the schema and is not fetched`);
  else if (target.kind === "malformed") report(at, `malformed $ref ${JSON.stringify(ref)}`);
  else if (target.kind === "dangling") report(at, `dangling $ref ${JSON.stringify(ref)}`);
}

export function formatWarning(warning: SchemaWarning): string {
  return `server "${warning.server}" tool "${warning.tool}" at ${warning.pointer}: ${warning.message}`;
}
