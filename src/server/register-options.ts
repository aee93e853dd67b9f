import { ToolDefinitionError } from "./errors.js";
import type { RateLimits } from "./rate-limits.js";
import type { ToolListing } from "./tool-listing.js";

/** What `registerFunctions` takes besides the server, the module and the manifest. */
export interface RegisterFunctionsOptions {
  /**
   * Budgets by bucket name: a tool tagged `pmcp/rateLimit: "read"` draws on `rateLimits.read`,
   * with every other tool tagged "read". Each bucket's calls are counted on its object, so pass
   * the same `rateLimits` to the registration of every session's server to share one budget
   * across sessions; a fresh object per registration gives each its own.
   */
  rateLimits?: RateLimits;
  /**
   * What tools/list shows first: `"all"` (the default), the `basic`-phase tools, or the `top` N
   * by popularity, the latter two with `enable_tools` to list the rest. Per registration, so per
   * session. Tools not listed yet can still be called by name: this shapes what a model sees,
   * not what is allowed.
   */
  listing?: ToolListing;
}

/** Throws an INVALID_OPTIONS ToolDefinitionError for an option that cannot be kept (JavaScript callers are not type-checked). */
export function checkOptions({ rateLimits = {}, listing = "all" }: RegisterFunctionsOptions): void {
  for (const [bucket, limit] of Object.entries(rateLimits)) {
    const at = `rate limit ${JSON.stringify(bucket)}`;
    if (typeof limit !== "object" || limit === null) invalid(`${at} must be { calls, perMs }, not ${shown(limit)}`);
    if (!Number.isInteger(limit.calls) || limit.calls < 1) invalid(`${at}: calls must be a whole number ≥ 1, not ${shown(limit.calls)}`);
    if (typeof limit.perMs !== "number" || !Number.isFinite(limit.perMs) || limit.perMs <= 0) {
      invalid(`${at}: perMs must be a finite number > 0, not ${shown(limit.perMs)}`);
    }
  }
  if (listing === "all" || listing === "basic") return;
  if (typeof listing !== "object" || listing === null) invalid(`listing must be "all", "basic" or { top: N }, not ${shown(listing)}`);
  if (!Number.isInteger(listing.top) || listing.top < 1) invalid(`listing top must be a whole number ≥ 1, not ${shown(listing.top)}`);
}

function invalid(message: string): never {
  throw new ToolDefinitionError("INVALID_OPTIONS", `registerFunctions: ${message}`);
}

/** An option's value in a message: numbers as written (`Infinity`, `NaN`), anything else as JSON. */
function shown(value: unknown): string {
  return typeof value === "number" ? String(value) : (JSON.stringify(value) ?? String(value));
}
