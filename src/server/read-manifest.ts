import { parseJsonText, parseJsonValue } from "../files/read-json.js";
import { ToolDefinitionError } from "./errors.js";
import { type ToolManifest, ToolManifestSchema } from "./manifest.js";

// Apart from the schema: the from-source cache checks its entries against ToolManifestSchema, and
// the JSON reader's imports would add a third to the time of its answer.

/** Parses a manifest file's text; `path` is only used in messages. */
export function parseToolManifest(path: string, text: string): ToolManifest {
  return parseJsonText(text, path, ToolManifestSchema, {
    fail: (message, cause) => new ToolDefinitionError("INVALID_MANIFEST", message, { cause }),
  });
}

/**
 * A manifest given as a value (JavaScript callers, `import … with { type: "json" }`), checked as a
 * file's would be; `source` names it in messages.
 */
export function checkToolManifest(manifest: unknown, source: string): ToolManifest {
  return parseJsonValue(manifest, source, ToolManifestSchema, {
    fail: (message, cause) => new ToolDefinitionError("INVALID_MANIFEST", message, { cause }),
  });
}
