import { createHash } from "node:crypto";

/** A short sha-256 digest of text or bytes, for digests of inputs and content in generated files and the reuse cache. */
export function hash(text: string | Uint8Array): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 32);
}
