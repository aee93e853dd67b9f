/**
 * The keys of `pmcp.config`, one row each: what it sets and its schema (the flags that stand for a key
 * name it, in commands/shared/flags.ts).
 * The config's TypeScript type (`PmcpConfig`), the schema every config file is checked by
 * (pmcp-config.ts) and the docs' config reference (config-reference.ts) are all derived from these
 * rows. A row's schema is built when a config is read, given zod, so that the type costs nothing to load.
 */
import type { OAuthTokenVerifier } from "@modelcontextprotocol/server";
import { type WholeNumberRange, wholeNumberProblem } from "@pmcp-codegen/runtime/internal/numbers";
import type { ServerEntry } from "@pmcp-codegen/runtime/internal/servers";
import type { z as Zod, ZodOptional, ZodType } from "zod";
import { EXEC_SETTINGS, type ExecSettingKey } from "../exec/limits.js";

export interface ConfigKey<T> {
  /** The key as the reference shows it, the keys inside it named: `rust: { output }`. */
  shown?: string;
  /** What the key sets, for the reference. */
  describe: string;
  /** The paths in its value, relative to the config file: "" for the value itself, else a key inside it. */
  paths?: readonly string[];
  /**
   * What the reference says of flags beside those that stand for the key (each flag names its key,
   * in commands/shared/flags.ts): for a key no flag stands for, what to give instead.
   */
  flagsNote?: string;
  schema(z: typeof Zod): ZodType<T>;
}

function key<T>(row: ConfigKey<T>): ConfigKey<T> {
  return row;
}

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

function isRustOutput(value: unknown): value is { output: string } {
  return (
    typeof value === "object" &&
    value !== null &&
    Object.keys(value).join() === "output" &&
    typeof (value as { output: unknown }).output === "string"
  );
}

function wholeNumber(z: typeof Zod, range: WholeNumberRange): ZodType<number> {
  return z.custom<number>((value) => wholeNumberProblem(value, range) === undefined, {
    error: (issue) => wholeNumberProblem(issue.input, range),
  });
}

const EXEC_KEYS = Object.keys(EXEC_SETTINGS) as ExecSettingKey[];

export const CONFIG_KEYS = {
  servers: key({
    describe:
      "`mcpServers` entries, as in a config file ([sources](commands/schema-export.md#sources)): what `schema export`, `dev` and `serve exec` use when no `--endpoint`, `--stdio` or `--config` is given",
    // Each entry is checked as a config file's are, when its server is started (`resolveSources`).
    schema: (z) => z.record(z.string(), z.custom<ServerEntry>()),
  }),
  bundle: key({
    paths: [""],
    describe: "the bundle file (default `schemas/mcp-bundle.json`); also where `serve exec --learn` keeps what it learns",
    schema: (z) => z.string(),
  }),
  output: key({
    paths: [""],
    describe: "the folder of the generated TypeScript clients (default `generated/`); `report` reads its `index.ts`",
    schema: (z) => z.string(),
  }),
  rust: key({
    paths: ["output"],
    shown: "rust: { output }",
    describe: "the folder of the Rust clients, written by the same `pmcp generate` (above)",
    flagsNote: "`-o` of `generate` with `--lang rust`",
    // One problem whatever is wrong with it (`"rust": "src/clients"` is the first guess): the shape it must have.
    schema: (z) => z.custom<{ output: string }>(isRustOutput, { error: 'expected { "output": "<folder for the Rust clients>" }' }),
  }),
  runtimeImport: key({
    describe:
      "the module generated files import the runtime from (default `@pmcp-codegen/runtime`): a package, whose `/parsers` subpath they import too, or the path of its `index.js`, with `parsers.js` beside it",
    schema: (z) => z.string().min(1, { error: "expected a module specifier, got an empty string" }),
  }),
  strictObjects: key({
    describe: "reject keys that `additionalProperties: false` forbids (default: keep them), in generated parsers and code mode",
    schema: (z) => z.boolean(),
  }),
  templates: key({
    paths: [""],
    describe:
      "a folder of templates (`server.ts.hbs`, `index.ts.hbs`) overriding the built-in ones ([templates](commands/generate.md#templates))",
    schema: (z) => z.string(),
  }),
  observe: key({
    paths: ["dir"],
    shown: "observe: { dir }",
    describe:
      "the folder of observation logs `pmcp dev` follows and `pmcp report` counts from (relative to the config file) ([learning from observations](commands/dev.md#learning-from-observations))",
    schema: (z) => z.strictObject({ dir: z.string() }),
  }),
  exec: key({
    shown: `exec: { ${EXEC_KEYS.join(", ")} }`,
    describe: "code mode's limits, whole numbers ([limits](concepts/code-mode.md#limits)); flags win",
    schema: (z) =>
      z.strictObject(
        Object.fromEntries(EXEC_KEYS.map((name) => [name, wholeNumber(z, EXEC_SETTINGS[name]).optional()])) as Record<
          ExecSettingKey,
          ZodOptional<ZodType<number>>
        >,
      ),
  }),
  serve: key({
    shown: "serve: { auth: { verifier, authorizationServers, scopes?, resource? } }",
    describe:
      "who may call `serve exec` and `serve inspect` over HTTP: a token verifier (an object with `verifyAccessToken(token)`), at least one issuer URL (https, or http on localhost), the scopes a token must hold, the URL clients reach the server by ([who may call](concepts/code-mode.md#who-may-call-serve-exec-and-serve-inspect-over-http)); needs `pmcp.config.ts` or `.js`",
    flagsNote: "`--auth-token-env` of `serve inspect` and `serve exec` is the other way, not both",
    schema: (z) =>
      z.strictObject({
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
      }),
  }),
};

/** The config a set of rows describes: each key optional, of its schema's type. */
export type ConfigOf<Keys> = { [K in keyof Keys]?: Keys[K] extends ConfigKey<infer T> ? T : never };
