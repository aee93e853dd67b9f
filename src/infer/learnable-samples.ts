import { boundSample, MAX_SAMPLE_BYTES, MAX_SAMPLE_DEPTH, type Sample } from "@pmcp-codegen/runtime/internal";
import type { InferredTool } from "../bundle/types.js";

/** Samples a schema is learned from at most: quicktype's time grows with them, and an even spread of this many of a uniform sample shows what a tool answers. */
export const MAX_INFERRED_SAMPLES = 1000;

export interface LearnableValues {
  values: unknown[];
  /** The values that were not cut down: only they can show that a server breaks its declared schema. */
  whole: unknown[];
  /** What was cut or left out, when anything was. */
  capped?: NonNullable<InferredTool["capped"]>;
}

/**
 * The JSON values of a log's samples, within the sample bounds whoever wrote the log (see
 * boundSample): at most MAX_INFERRED_SAMPLES of them, evenly spread over the log, each nested
 * at most MAX_SAMPLE_DEPTH levels and at most MAX_SAMPLE_BYTES as JSON. No sample can then
 * overflow quicktype's stack or take it minutes.
 */
export function learnableValues(samples: readonly Sample[]): LearnableValues {
  const all = samples.flatMap((sample) => ("value" in sample ? [sample] : []));
  const picked = all.length <= MAX_INFERRED_SAMPLES ? all : spread(all, MAX_INFERRED_SAMPLES);
  const cuts = { depth: 0, size: 0 };
  const values: unknown[] = [];
  const whole: unknown[] = [];
  for (const sample of picked) {
    const bounded = boundSample(sample.value);
    const cut = new Set([...(sample.cut ?? []), ...bounded.cut]);
    for (const kind of cut) cuts[kind] += 1;
    values.push(bounded.value);
    if (cut.size === 0) whole.push(bounded.value);
  }
  const capped = {
    ...(cuts.depth === 0 ? {} : { depth: cuts.depth }),
    ...(cuts.size === 0 ? {} : { size: cuts.size }),
    ...(picked.length === all.length ? {} : { count: all.length - picked.length }),
  };
  return { values, whole, ...(Object.keys(capped).length === 0 ? {} : { capped }) };
}

/** `count` items spread evenly over `items`, first and last included. */
function spread<T>(items: readonly T[], count: number): T[] {
  return Array.from({ length: count }, (_, index) => items[Math.round((index * (items.length - 1)) / (count - 1))] as T);
}

/** For `pmcp schema infer`'s line per tool: the samples made to fit, counted; empty when none was. */
export function cappedNote(capped: InferredTool["capped"]): string {
  if (capped === undefined) return "";
  const parts = [
    ...(capped.depth === undefined ? [] : [`${capped.depth} nested past ${MAX_SAMPLE_DEPTH} levels`]),
    ...(capped.size === undefined ? [] : [`${capped.size} over ${MAX_SAMPLE_BYTES / 1024} KiB cut down`]),
    ...(capped.count === undefined ? [] : [`${capped.count} left out past ${MAX_INFERRED_SAMPLES}`]),
  ];
  return `; samples made to fit: ${parts.join(", ")}`;
}
