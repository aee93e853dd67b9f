import { access, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { OAuthTokenVerifier } from "@modelcontextprotocol/server";
import type { WholeNumberRange } from "@pmcp-codegen/runtime/internal/numbers";
import { PmcpError } from "../errors.js";
import { EXEC_SETTINGS } from "../exec/limits.js";
import type { PmcpConfig, RustOutput } from "./define-config.js";

function isVerifier(value: unknown): value is OAuthTokenVerifier {
  return typeof (value as { verifyAccessToken?: unknown } | null)?.verifyAccessToken === "function";
}

/** An issuer a client may trust: https, or http on this machine (a local authorization server while developing). */
function isIssuer(value: string): boolean {
  const url = URL.parse(value);
  return (
    url !== null && (url.protocol === "https:" || (url.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname)))
  );
}

function isRustOutput(value: unknown): value is RustOutput {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.keys(value).join() === "output" &&
    typeof (value as RustOutput).output === "string"
  );
}

/** Built on first use: most runs have no config file, and a no-op `generate` should not pay for loading zod. */
async function configSchema() {
  const [{ z }, { wholeNumberProblem }] = await Promise.all([import("zod"), import("@pmcp-codegen/runtime/internal/numbers")]);
  const wholeNumber = (range: WholeNumberRange) =>
    z
      .unknown()
      .superRefine((value, context) => {
        const problem = wholeNumberProblem(value, range);
        if (problem !== undefined) context.addIssue({ code: "custom", message: problem });
      })
      .optional();
  return z.strictObject({
    servers: z.record(z.string(), z.unknown()).optional(),
    bundle: z.string().optional(),
    output: z.string().optional(),
    // One problem whatever is wrong with it (`"rust": "src/clients"` is the first guess): the shape it must have.
    rust: z.custom<RustOutput>(isRustOutput, { error: 'expected { "output": "<folder for the Rust clients>" }' }).optional(),
    runtimeImport: z.string().optional(),
    strictObjects: z.boolean().optional(),
    templates: z.string().optional(),
    exec: z.strictObject(Object.fromEntries(Object.entries(EXEC_SETTINGS).map(([key, setting]) => [key, wholeNumber(setting)]))).optional(),
    observe: z.strictObject({ dir: z.string() }).optional(),
    serve: z
      .strictObject({
        auth: z
          .strictObject({
            verifier: z.custom<OAuthTokenVerifier>(isVerifier, { error: "expected an object with a verifyAccessToken(token) method" }),
            authorizationServers: z
              .array(z.string().refine(isIssuer, { error: "expected an issuer URL: https, or http on localhost" }))
              .min(1),
            scopes: z.array(z.string()).optional(),
            resource: z.url().optional(),
          })
          .optional(),
      })
      .optional(),
  });
}

export interface LoadedConfig {
  path: string;
  /** The config file's folder: relative paths in it resolve here. */
  dir: string;
  config: PmcpConfig;
}

/** The names `pmcp.config` may have, first found first used. */
export const CONFIG_FILE_NAMES = ["pmcp.config.ts", "pmcp.config.mts", "pmcp.config.mjs", "pmcp.config.js", "pmcp.config.json"];

/** Finds and loads the first `pmcp.config.*` in `cwd`; TypeScript configs load through jiti. */
export async function loadPmcpConfig(cwd: string = process.cwd()): Promise<LoadedConfig | undefined> {
  for (const name of CONFIG_FILE_NAMES) {
    const path = join(cwd, name);
    const exists = await access(path).then(
      () => true,
      () => false,
    );
    if (!exists) continue;
    const [{ parseJsonValue, readJsonFile }, schema] = await Promise.all([import("../files/read-json.js"), configSchema()]);
    const config = name.endsWith(".json")
      ? await readJsonFile(path, schema, { code: "INVALID_CONFIG" })
      : parseJsonValue(await loadModule(path, name), name, schema, { code: "INVALID_CONFIG" });
    return { path, dir: dirname(resolve(path)), config: config as PmcpConfig };
  }
  return undefined;
}

/**
 * The default export of a `pmcp.config` module; TypeScript loads through jiti. Loaded as it is
 * now, not from a module cache: `pmcp dev` loads it again after each edit.
 */
async function loadModule(path: string, name: string): Promise<unknown> {
  try {
    if (name.endsWith(".ts") || name.endsWith(".mts")) {
      const { createJiti } = await import("jiti");
      return await createJiti(import.meta.url, { moduleCache: false }).import(path, { default: true });
    }
    const { mtimeMs } = await stat(path);
    return (await import(`${pathToFileURL(path).href}?mtime=${mtimeMs}`)).default;
  } catch (error) {
    throw new PmcpError("INVALID_CONFIG", `cannot load ${name}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`);
  }
}
