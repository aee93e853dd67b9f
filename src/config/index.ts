/**
 * pmcp-codegen/config: what a `pmcp.config.ts` imports. It loads nothing but this folder's one
 * function, so a config costs the CLI nothing to load.
 */

export type { PmcpConfig, RustOutput, ServeAuth } from "./define-config.js";
export { defineConfig } from "./define-config.js";
