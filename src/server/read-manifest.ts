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

/** Manifests found well-formed: a server made per request (stateless HTTP) registers the same one each time. */
const checked = new WeakSet<object>();

/**
 * A manifest given as a value (JavaScript callers, `import … with { type: "json" }`), checked as a
 * file's would be; messages name it by its `source` when it has one.
 */
export function checkToolManifest(manifest: unknown, caller: string): void {
  if (typeof manifest === "object" && manifest !== null && checked.has(manifest)) return;
  const source = typeof manifest === "object" && manifest !== null && "source" in manifest ? manifest.source : undefined;
  parseJsonValue(manifest, typeof source === "string" ? `${caller}: ${source}` : `${caller}: the manifest`, ToolManifestSchema, {
    fail: (message, cause) => new ToolDefinitionError("INVALID_MANIFEST", message, { cause }),
  });
  if (typeof manifest === "object" && manifest !== null) checked.add(manifest);
}
