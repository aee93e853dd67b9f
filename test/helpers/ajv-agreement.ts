import fc from "fast-check";
import type { z } from "zod";
import { compileSchema, type ValidateFunction } from "../../src/json-schema/validator.js";
import type { Entry } from "./corpus-entries.js";
import { samples } from "./samples.js";

/**
 * Samples of each entry's schema judged by Ajv and by the generated parser `S<index>Schema`: the
 * same verdict, or (for entries with a warning, whose unexpressed parts are typed unknown) wider.
 */
export function agreeWithAjv(
  entries: readonly Entry[],
  parsers: Record<string, z.ZodType>,
  warned: ReadonlySet<number>,
  numRuns: number | ((entry: Entry) => number),
) {
  let valid = 0;
  let invalid = 0;
  let compared = 0;
  const oneSided: string[] = [];
  for (const [index, entry] of entries.entries()) {
    const parser = parsers[`S${index}Schema`]!;
    const ajv = compileWithAjv(entry.schema);
    if (ajv === undefined) {
      // Ajv cannot compile it (a dangling or remote $ref): the parser must still run.
      fc.assert(
        fc.property(fc.jsonValue(), (value) => typeof parser.safeParse(value).success === "boolean"),
        { numRuns: 30 },
      );
      continue;
    }
    compared++;
    const before = { valid, invalid };
    fc.assert(
      fc.property(samples(entry.schema), (value) => {
        const expected = ajv(value);
        const actual = parser.safeParse(value).success;
        if (expected) valid++;
        else invalid++;
        return warned.has(index) ? actual || !expected : actual === expected;
      }),
      {
        numRuns: typeof numRuns === "number" ? numRuns : numRuns(entry),
        seed: 20261122 + index,
        endOnFailure: true,
        reporter: (run) => {
          if (run.failed) throw new Error(`${entry.name}: parser and Ajv disagree on ${JSON.stringify(run.counterexample?.[0])}`);
        },
      },
    );
    if (valid === before.valid || invalid === before.invalid) oneSided.push(entry.name);
  }
  return { compared, valid, invalid, oneSided };
}

/** Ajv's validator for a schema, or undefined when Ajv cannot compile it (a dangling or remote `$ref`). */
export function compileWithAjv(schema: unknown): ValidateFunction | undefined {
  try {
    return compileSchema(schema);
  } catch {
    return undefined;
  }
}
