import type { Drift } from "../bundle/types.js";
import { type ValidateFunction, validatorFor } from "../json-schema/validator.js";

/** Enough to see the pattern; a server that breaks its schema everywhere would otherwise fill the bundle. */
const MAX_DRIFTS = 20;

/** With redacted observations only these keywords mean something: strings and numbers are stand-ins. */
const STRUCTURAL = new Set(["type", "required", "additionalProperties"]);

/**
 * Observed results that break the tool's declared schema, grouped by where and how
 * (array indexes folded to `*`), most frequent first. These are server bugs that
 * generated clients would hit as OutputValidationError. Undefined when nothing of the
 * declared schema can be checked; the parts that cannot are not (validatorFor).
 * `structureOnly` is for redacted observations.
 */
export function findDrift(declared: unknown, values: readonly unknown[], structureOnly = false): Drift[] | undefined {
  let validate: ValidateFunction;
  try {
    validate = validatorFor(declared).validate;
  } catch {
    return undefined;
  }
  const counts = new Map<string, Drift>();
  for (const value of values) {
    if (validate(value)) continue;
    // One count per observation and problem, however many items of an array share it.
    const problems = new Map<string, Drift>();
    for (const error of validate.errors ?? []) {
      if (structureOnly && !STRUCTURAL.has(error.keyword)) continue;
      const path = error.instancePath.replace(/\/\d+(?=\/|$)/g, "/*");
      const message =
        error.keyword === "additionalProperties"
          ? `unexpected property ${JSON.stringify(error.params.additionalProperty)}`
          : (error.message ?? error.keyword);
      problems.set(JSON.stringify([path, message]), { path, message, count: 1 });
    }
    for (const [key, problem] of problems) {
      const seen = counts.get(key);
      if (seen === undefined) counts.set(key, problem);
      else seen.count += 1;
    }
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)).slice(0, MAX_DRIFTS);
}
