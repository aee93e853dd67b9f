/**
 * The base of every error pmcp-codegen's packages throw: a stable `code`, and an `instanceof` that
 * holds across two copies of a package (a project whose dependencies bring a second
 * `@pmcp-codegen/runtime`, or code loaded through two paths), as zod 4's errors do. Each error
 * carries the names of its classes under a registered symbol; `instanceof` asks for the name.
 */

/** Shared by every copy of the packages: `Symbol.for` is one registry per process. */
const LINEAGE = Symbol.for("pmcp-codegen.error-lineage");

export abstract class BrandedError extends Error {
  /** Why, in words a caller can switch on and log; stable across releases. */
  abstract readonly code: string;

  /** A value is an instance of a class when it was made by it, or by a class of that name in another copy of the package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class `instanceof` asks about (a subclass inherits this method), not BrandedError.
    return madeBy(this, value);
  }

  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    const names: string[] = [];
    for (let type: unknown = new.target; typeof type === "function" && type !== Error; type = Object.getPrototypeOf(type))
      names.push(type.name);
    Object.defineProperty(this, LINEAGE, { value: Object.freeze(names) });
  }
}

/** Whether `value` was made by `type`, or by a class of its name in another copy of the package. */
function madeBy(type: abstract new (...args: never[]) => unknown, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(type, value)) return true;
  const lineage = typeof value === "object" && value !== null ? (value as { [LINEAGE]?: unknown })[LINEAGE] : undefined;
  return Array.isArray(lineage) && lineage.includes(type.name);
}
