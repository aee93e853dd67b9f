import { readFileSync } from "node:fs";

/** This package's version; the same relative path from `src/` and `dist/`. */
export const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
