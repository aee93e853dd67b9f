import manifest from "../package.json" with { type: "json" };

/** This package's version; the same relative path from `src/` and `dist/`. */
export const { version } = manifest;
