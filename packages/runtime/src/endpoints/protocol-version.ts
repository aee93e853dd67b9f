/** The first protocol revision of the modern era: no `initialize`, `server/discover` instead. */
export const MODERN_PROTOCOL_VERSION = "2026-07-28";

/** Whether a protocol version belongs to the modern era (2026-07-28 and later; versions are dates). */
export function isModernVersion(version: string): boolean {
  return version >= MODERN_PROTOCOL_VERSION;
}
