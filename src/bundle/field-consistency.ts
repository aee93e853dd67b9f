import type { InferredTool } from "./types.js";

type FieldStats = InferredTool["fields"][number];

/** Below this share of values of one type a field is named as of low consistency (in an inferred result type's JSDoc). */
export const LOW_CONSISTENCY = 0.7;

/** How steady one field's type was across the observations. */
export interface FieldConsistency {
  /** The field's JSON pointer, `*` for every array item or record value. */
  path: string;
  /** Share of the field's non-null values that had its most common type. */
  consistency: number;
  /** Each type seen with how many values had it, most first (then by name); integer counts as number. */
  types: [type: string, count: number][];
}

/**
 * The consistency of a field: the share of its non-null values that had its most common type,
 * integer and number counted as one (an integer is a number, and a price seen as 3 and 3.5 is
 * steady) and null left out (an optional value is not a varying one), as consistentObservations
 * judges whole observations. Undefined for a field never seen with a value.
 */
export function fieldConsistency(field: FieldStats): FieldConsistency | undefined {
  const counts = new Map<string, number>();
  for (const [type, count] of Object.entries(field.types)) {
    if (type === "null") continue;
    const kind = type === "integer" ? "number" : type;
    counts.set(kind, (counts.get(kind) ?? 0) + count);
  }
  const types = [...counts].sort(([a, m], [b, n]) => n - m || (a < b ? -1 : a > b ? 1 : 0));
  const total = types.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return undefined;
  return { path: field.path, consistency: types[0]![1] / total, types };
}

/** The fields of an inferred block whose consistency is below LOW_CONSISTENCY, in the block's (pointer) order. */
export function lowConsistencyFields(block: Pick<InferredTool, "fields">): FieldConsistency[] {
  return block.fields.flatMap((field) => {
    const judged = fieldConsistency(field);
    return judged !== undefined && judged.consistency < LOW_CONSISTENCY ? [judged] : [];
  });
}

/** `/items/*\/price 55 % (number 11, string 9)`: the share rounded down, so a field below 70 % never reads 70 %. */
export function fieldConsistencyText(field: FieldConsistency): string {
  return `${field.path || "(the result)"} ${Math.floor(field.consistency * 100)} % (${field.types.map(([type, count]) => `${type} ${count}`).join(", ")})`;
}
