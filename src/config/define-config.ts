/**
 * What a `pmcp.config.ts` imports (`pmcp-codegen/config`): the config's type and `defineConfig`.
 * Types only and one identity function, so that loading a config loads nothing else of the
 * package (a test checks the built import graph); the CLI reads and checks the file in
 * pmcp-config.ts.
 */

import type { OAuthTokenVerifier } from "@modelcontextprotocol/server";
import type { ServerEntry } from "@pmcp-codegen/runtime/internal/servers";
import type { ExecSettings } from "../exec/limits.js";

/** `pmcp.config.ts` / `.json`: the servers to export and where the bundle and clients go. */
export interface PmcpConfig {
  /** The servers to export, as `mcpServers` entries. */
  servers?: Record<string, ServerEntry>;
  /** The schema bundle (default `schemas/mcp-bundle.json`), relative to the config file. */
  bundle?: string;
  /** Folder for generated clients (default `generated`), relative to the config file. */
  output?: string;
  /** `output`: the folder for Rust clients, relative to the config file; with it, `pmcp generate` writes both languages. */
  rust?: RustOutput;
  /** Module specifier generated files import the runtime from (default `@pmcp-codegen/runtime`). */
  runtimeImport?: string;
  /** Reject keys that `additionalProperties: false` forbids instead of keeping them. */
  strictObjects?: boolean;
  /** Folder of templates overriding the built-in ones, relative to the config file. */
  templates?: string;
  /** Limits of `pmcp serve exec` and `pmcp exec` programs; their flags override these. */
  exec?: Partial<ExecSettings>;
  /** `dir`: the folder of observation logs `pmcp dev` learns result types from as they are written, relative to the config file. */
  observe?: { dir: string };
  /** `pmcp serve exec` and `serve inspect` over HTTP. */
  serve?: { auth?: ServeAuth };
}

/**
 * `pmcp serve --http` as an OAuth protected resource (the MCP authorization model): every request
 * carries a bearer token from one of `authorizationServers`, which `verifier` checks.
 */
export interface ServeAuth {
  /**
   * Says whose a token is, or throws (`new OAuthError(OAuthErrorCode.InvalidToken, why)` from
   * `@modelcontextprotocol/server` for a token refused; anything else answers 500): its
   * `clientId` tells callers apart for the type-checkers' fair shares, `expiresAt` must be given,
   * and `resource` must name this server (the token's audience).
   */
  verifier: OAuthTokenVerifier;
  /** The issuers tokens come from, published in the resource's metadata: https, or http on loopback. */
  authorizationServers: string[];
  /** Scopes every token must hold (403 `insufficient_scope` otherwise), published as `scopes_supported`. */
  scopes?: string[];
  /** The server's URL as clients reach it, and the audience its tokens must name (default: `http://<Host>/mcp` of each request). */
  resource?: string;
}

export interface RustOutput {
  output: string;
}

/** Typed identity for `pmcp.config.ts`: `export default defineConfig({ ... })`. */
export function defineConfig(config: PmcpConfig): PmcpConfig {
  return config;
}
