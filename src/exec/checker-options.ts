/**
 * The compiler options programs are checked with, as plain data: the checker's start-up snapshot
 * (checker-snapshot.ts) parses the library with these very values, so that the checker finds its
 * library files already parsed, and the server's process, which never loads TypeScript, can hand
 * them over. type-check.ts types them as `ts.CompilerOptions`, which proves the enum values.
 */
export const PROGRAM_COMPILER_OPTIONS = {
  strict: true,
  // ts.ScriptTarget.ES2022
  target: 9 as const,
  // ES2022 only: no DOM and no Node types, so `process`, `require` and `fetch` do not type-check.
  lib: ["lib.es2022.d.ts"],
  types: [] as string[],
  // Emitted from the checked program itself, so erasing the types costs no second parse.
  noEmit: false,
  removeComments: false,
  // Maps an error's position in the JavaScript the sandbox runs back to the agent's own line.
  sourceMap: true,
  noLib: false,
  // ts.ModuleDetectionKind.Legacy
  moduleDetection: 1 as const,
};

/** Where a checker started from the snapshot finds the snapshot's document registry, holding the parsed library. */
export const SNAPSHOT_REGISTRY_KEY = "pmcp-codegen.checker-registry";
