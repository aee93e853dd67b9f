/**
 * The provider profiles `pmcp schema normalize` and `lint` know, in a module of its own so
 * that the CLI can list them in `--help` without loading the normalizer.
 */
export const PROFILES = ["openai", "openai-strict", "gemini", "gemini-json", "anthropic", "anthropic-strict", "portable"] as const;
export type Profile = (typeof PROFILES)[number];
