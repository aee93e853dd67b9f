/** "no space left on device" from Node's "ENOSPC: no space left on device, write". */
export function systemReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return /^[A-Z]+: ([^,]+)/.exec(message)?.[1] ?? message;
}
