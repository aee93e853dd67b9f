import { cp, rm } from "node:fs/promises";
import { join } from "node:path";
import * as runtime from "@pmcp-codegen/runtime";
import { afterAll, describe, expect, it } from "vitest";
import * as root from "../../src/index.js";
import * as model from "../../src/model/index.js";
import * as server from "../../src/server/index.js";
import { ROOT } from "../helpers/cli.js";
import { outputDir } from "../helpers/typescript.js";

const copies: string[] = [];
afterAll(() => Promise.all(copies.map((copy) => rm(copy, { recursive: true, force: true }))));

/** A second copy of a package's sources, as a project with two installs of it has: its classes are others. */
async function copyOf<T>(sources: string, entry: string): Promise<T> {
  const folder = await outputDir("second-copy");
  copies.push(folder);
  const copy = join(folder, "src");
  await cp(join(ROOT, sources), copy, { recursive: true });
  return import(/* @vite-ignore */ join(copy, entry));
}

describe("errors: one base per package, with a code, and instanceof across copies", () => {
  it("holds instanceof for an error made by a second copy of the runtime, by family, and not across families", async () => {
    const other = await copyOf<typeof runtime>("packages/runtime/src", "index.ts");
    expect(other.ToolCallError).not.toBe(runtime.ToolCallError);
    const failed = new other.ToolCallError("inv", "get_stock", "out of stock");
    const timedOut = new other.TimeoutError("no answer", "inv", "get_stock");
    const verdicts = (error: unknown) =>
      [
        runtime.BrandedError,
        runtime.CompositionError,
        runtime.CompositionCallError,
        runtime.ProtocolCallError,
        runtime.LocalCallError,
        runtime.ToolCallError,
        runtime.TimeoutError,
        runtime.ConfigurationError,
        Error,
      ].map((type) => error instanceof type);
    expect(verdicts(failed)).toEqual([true, true, true, true, false, true, false, false, true]);
    expect(verdicts(timedOut)).toEqual([true, true, true, false, true, false, true, false, true]);
    expect([failed.code, timedOut.code]).toEqual(["TOOL_CALL_FAILED", "TIMEOUT"]);
    expect(verdicts({ name: "ToolCallError", code: "TOOL_CALL_FAILED" })).toEqual([
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it("holds it for pmcp-codegen's errors made by a second copy", async () => {
    const other = await copyOf<typeof model>("src", "model/index.ts");
    expect(other.RestoreError).not.toBe(model.RestoreError);
    const refused = new other.RestoreError("INVALID_ARGUMENTS", "/n", "n must be an integer");
    expect([refused instanceof model.RestoreError, refused instanceof root.PmcpError, refused instanceof runtime.BrandedError]).toEqual([
      true,
      true,
      true,
    ]);
    expect(new other.UnknownToolError("no tool get_stok") instanceof model.UnknownToolError).toBe(true);
  });

  it("gives every error class the entries export the base of its package, and a code", () => {
    const errorClasses = (entry: Record<string, unknown>) =>
      Object.entries(entry)
        .filter(([, value]) => typeof value === "function" && (value as { prototype?: unknown }).prototype instanceof Error)
        .map(([name, value]) => [
          name,
          value === runtime.BrandedError || (value as { prototype: unknown }).prototype instanceof runtime.BrandedError,
        ]);
    const all = [runtime, root, model, server].flatMap((entry) => errorClasses(entry as Record<string, unknown>));
    expect(all.filter(([, branded]) => !branded)).toEqual([]);
    expect(new Set(all.map(([name]) => name))).toEqual(
      new Set([
        "AbortError",
        "ArgumentError",
        "BrandedError",
        "CompositionCallError",
        "CompositionError",
        "ConfigurationError",
        "ConnectionError",
        "InvalidResponseError",
        "LocalCallError",
        "OutputValidationError",
        "ProtocolCallError",
        "ServerNotFoundError",
        "TimeoutError",
        "ToolCallError",
        "TransportError",
        "UnsupportedPatternError",
        "PmcpError",
        "RestoreError",
        "UnknownToolError",
        "ToolDefinitionError",
      ]),
    );
    expect([new model.UnknownToolError("x").code, new server.ToolDefinitionError("INVALID_SCHEMA", "x").code]).toEqual([
      "UNKNOWN_TOOL",
      "INVALID_SCHEMA",
    ]);
  });
});
