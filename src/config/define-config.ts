/**
 * What a `pmcp.config.ts` imports (`pmcp-codegen/config`): the config's type and `defineConfig`.
 * Types only and one identity function, so that loading a config loads nothing else of the
 * package (a test checks the built import graph); the CLI reads and checks the file in
 * pmcp-config.ts.
 */

import type { CONFIG_KEYS, ConfigOf } from "./keys.js";

/** `pmcp.config.ts` / `.json`: the servers to export and where the bundle and clients go; each key is a row of `CONFIG_KEYS`. */
export type PmcpConfig = ConfigOf<typeof CONFIG_KEYS>;

/** `rust`: the folder of the Rust clients, relative to the config file; with it, `pmcp generate` writes both languages. */
export type RustOutput = NonNullable<PmcpConfig["rust"]>;

/**
 * `serve.auth`: `pmcp serve --http` as an OAuth protected resource (the MCP authorization model).
 * `verifier` says whose a token is, or throws (`new OAuthError(OAuthErrorCode.InvalidToken, why)` from
 * `@modelcontextprotocol/server` for a token refused; anything else answers 500); its `clientId` tells
 * callers apart, and its `resource` must name this server.
 */
export type ServeAuth = NonNullable<NonNullable<PmcpConfig["serve"]>["auth"]>;

/** Typed identity for `pmcp.config.ts`: `export default defineConfig({ ... })`. */
export function defineConfig(config: PmcpConfig): PmcpConfig {
  return config;
}
