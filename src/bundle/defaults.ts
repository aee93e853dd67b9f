/** Where `pmcp schema export` writes and `pmcp generate` reads when nothing else is said. */
export const DEFAULT_BUNDLE_PATH = "schemas/mcp-bundle.json";
