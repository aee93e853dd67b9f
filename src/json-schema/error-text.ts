import { formatJsonPath } from "@pmcp-codegen/runtime/internal";
import { pointerKeys } from "./pointer.js";
import type { ErrorObject } from "./validator.js";

/** The most errors a description reads, however many there are. */
const MAX_READ = 1_000;

/** `lines[0].quantity: must be number`: each error names the field it is about. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined, max = 3): string {
  // Formatted only until `max` differ, or a thousand were read: a value of a million wrong items costs what a few do.
  const messages = new Set<string>();
  for (const error of (errors ?? []).slice(0, MAX_READ)) {
    if (messages.size === max) break;
    messages.add(describeError(error));
  }
  return [...messages].join("; ");
}

function describeError(error: ErrorObject): string {
  const field = fieldOf(error);
  if (error.keyword === "required") return `${field}: is required`;
  if (error.keyword === "additionalProperties") return `${field}: is not allowed`;
  // The allowed values let whoever called (often a model) correct the call at once.
  if (error.keyword === "enum" && Array.isArray(error.params.allowedValues))
    return `${field}: must be one of ${allowed(error.params.allowedValues)}`;
  return `${field}: ${error.message ?? error.keyword}`;
}

function fieldOf(error: ErrorObject): string {
  const segments = pointerKeys(error.instancePath);
  const named = error.params.missingProperty ?? error.params.additionalProperty;
  if (typeof named === "string") segments.push(named);
  if (segments.length === 0) return "arguments";
  return formatJsonPath(segments.map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment)));
}

/** At most ten values, as JSON: `"a", "b" or "c"`. */
function allowed(values: readonly unknown[]): string {
  const shown = values.slice(0, 10).map((value) => JSON.stringify(value) ?? String(value));
  if (values.length > 10) return `${shown.join(", ")}, … (${values.length} values)`;
  return shown.length < 2 ? shown.join("") : `${shown.slice(0, -1).join(", ")} or ${shown.at(-1)}`;
}
