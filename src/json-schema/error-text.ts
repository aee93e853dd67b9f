import { formatJsonPath } from "@pmcp-codegen/runtime/internal";
import { pointerKeys } from "./pointer.js";
import type { ErrorObject } from "./validator.js";

/** `lines[0].quantity: must be number`: each error names the field it is about. */
export function describeErrors(errors: readonly ErrorObject[] | null | undefined, max = 3): string {
  const messages = (errors ?? []).map((error) => {
    const field = fieldOf(error);
    if (error.keyword === "required") return `${field}: is required`;
    if (error.keyword === "additionalProperties") return `${field}: is not allowed`;
    return `${field}: ${error.message ?? error.keyword}`;
  });
  return [...new Set(messages)].slice(0, max).join("; ");
}

function fieldOf(error: ErrorObject): string {
  const segments = pointerKeys(error.instancePath);
  const named = error.params.missingProperty ?? error.params.additionalProperty;
  if (typeof named === "string") segments.push(named);
  if (segments.length === 0) return "arguments";
  return formatJsonPath(segments.map((segment) => (/^\d+$/.test(segment) ? Number(segment) : segment)));
}
