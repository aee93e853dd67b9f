/** Where `pmcp schema export` writes and `pmcp generate` reads when nothing else is said. */
export const DEFAULT_BUNDLE_PATH = "schemas/mcp-bundle.json";

/** The bundle format this version writes; kept here, away from the zod schemas, so that printing JSON does not load zod. */
export const BUNDLE_VERSION = "1.0";
