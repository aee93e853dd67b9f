/**
 * What a piece of emitted code refers to, reported by the emitter that wrote it, so that
 * imports, declaration order and helper-type listings follow from the IR, never from
 * scanning the emitted text.
 */
export interface Uses {
  /** Named definitions it refers to, in order of first reference. */
  refs: Set<string>;
}

export interface Emitted {
  code: string;
  uses: Uses;
}

export function noUses(): Uses {
  return { refs: new Set() };
}
